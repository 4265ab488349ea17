"""The code embedding: a static embedding over split-identifier words trained here (model.py), entity
vectors computed at index time and kept in the index (vectors.py), and the nearest entities to a
text (search.py). numpy only, the same answer on every machine; a model2vec model the repository
configures may take the shipped one's place (local.py)."""
