"""How `verity serve` is configured: the settings (`ServerConfig`, checked before anything starts),
the YAML config file, the browser endpoints to attach to, the TLS files, and which binds are safe.
Nothing here speaks gRPC or hosts a run; `ServiceConfigError` says what to change.
"""
