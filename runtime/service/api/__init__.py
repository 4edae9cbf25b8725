"""The gRPC face of the service: servicers, proto mapping, rich errors, bearer tokens, the server.
The only room of the service that imports grpc or knows a status code."""
