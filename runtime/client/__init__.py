"""The Python client of the Verity gRPC API (what `verity client` uses), in a room of its own: it
needs the generated stubs (runtime/service/gen/) and nothing of the server.

    from runtime.client import VerityClient

    with VerityClient("127.0.0.1:50051", token) as client:
        for event in client.run(recipe_name="demo-quote", inputs={"site": "..."}):
            print(event.seq, event.WhichOneof("payload"))
"""

from runtime.client.verity_client import ArtifactMismatch, VerityClient, VerityRpcError, Violation

__all__ = ["ArtifactMismatch", "VerityClient", "VerityRpcError", "Violation"]
