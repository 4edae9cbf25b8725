"""Hosting runs, whatever face a request comes through: no module here imports gRPC. A failed
request is a typed error (errors.py) the face says in its own terms."""
