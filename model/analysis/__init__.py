"""What each layer knows and what each head does: probing, vector geometry, head statistics and attribution.

* ``data``: tagged sentences for the probes (English POS from the Brown corpus, Chinese POS and entities from
  People's Daily 1998), all from documents the pre-training corpus held out, and a word's contexts.
* ``features``: the frozen vectors of every layer (embeddings = layer 0) at the first word-piece of each word,
  from the loaded model or a randomly initialised one of the same shape.
* ``probing``: linear probes per layer, the control task and selectivity (Hewitt & Liang 2019), the expected
  layer (Tenney, Das & Pavlick 2019).
* ``geometry``: anisotropy, self-similarity and a 2-D PCA per layer (Ethayarajh 2019).
* ``heads``: what each attention head does over many sentences, which heads matter, and attribution beyond the
  raw weights (Clark et al. 2019, Kovaleva et al. 2019, Michel et al. 2019, Kobayashi et al. 2020, Abnar &
  Zuidema 2020).

Plain PyTorch and numpy: nothing here imports a UI library.
"""
