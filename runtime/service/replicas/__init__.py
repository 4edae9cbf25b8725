"""Replicas of `verity serve` on one PostgreSQL run store: any of them serves any run
(supervisor.py). Like runs/, no module here imports gRPC."""
