"""Artifact storage: large payloads live in files; results and events carry `ArtifactRef`s."""

from runtime.artifacts.store import ArtifactError, ArtifactRef, ArtifactStore

__all__ = ["ArtifactError", "ArtifactRef", "ArtifactStore"]
