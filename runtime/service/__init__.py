"""The service: `verity serve` hosts runs and answers for them over gRPC.

Its rooms, each importing only those before it:
- gen/: the stubs generated from proto/verity/v1 (tools/gen_proto.py);
- config/: the server's settings, its config file, browser endpoints, TLS files, safe binds;
- runs/: hosting runs, knowing nothing of gRPC: the supervisor and the path every run's events
  take (durable before visible), following a run, its record, recovery after a crash, artifacts,
  the recipe catalog and the loading policy for recipes clients send, and the typed errors a
  request about runs fails with;
- replicas/: several servers on one PostgreSQL store, each serving any run;
- api/: the gRPC face, the only room that knows status codes: the servicers, proto mapping, rich
  errors, bearer tokens, and the server.
The Python client lives apart, in runtime/client/.
"""
