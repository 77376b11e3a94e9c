"""Training: pre-training (MLM + NSP) and fine-tuning loops, the data they are fed, and the model card."""
