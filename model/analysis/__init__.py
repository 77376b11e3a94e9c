"""What each layer knows and how its vectors are shaped: probing classifiers and vector geometry.

* ``data``: tagged sentences for the probes (English POS from the Brown corpus, Chinese POS and entities from
  People's Daily 1998), all from documents the pre-training corpus held out, and a word's contexts.
* ``features``: the frozen vectors of every layer (embeddings = layer 0) at the first word-piece of each word,
  from the loaded model or a randomly initialised one of the same shape.
* ``probing``: linear probes per layer, the control task and selectivity (Hewitt & Liang 2019), the expected
  layer (Tenney, Das & Pavlick 2019).
* ``geometry``: anisotropy, self-similarity and a 2-D PCA per layer (Ethayarajh 2019).

Plain PyTorch and numpy: nothing here imports a UI library.
"""
