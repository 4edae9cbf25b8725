"""verity.v1.RecipeService: validate, compile and list recipes."""

from __future__ import annotations

import json

import grpc
from google.protobuf import struct_pb2

from runtime.plan import compile_recipe, to_mermaid
from runtime.recipe import RecipeInvalid
from runtime.service.api.proto_mapping import problem_to_proto
from runtime.service.api.rich_errors import load_or_report, reports_errors
from runtime.service.gen.verity.v1 import recipe_service_pb2 as recipe_pb
from runtime.service.gen.verity.v1 import recipe_service_pb2_grpc as recipe_grpc
from runtime.service.runs.errors import InvalidRequest
from runtime.service.runs.recipe_catalog import RecipeCatalog

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000


class RecipeServicer(recipe_grpc.RecipeServiceServicer):
    def __init__(self, catalog: RecipeCatalog) -> None:
        self._catalog = catalog

    @reports_errors
    async def ValidateRecipe(
        self, request: recipe_pb.ValidateRecipeRequest, context: grpc.aio.ServicerContext
    ) -> recipe_pb.ValidateRecipeResponse:
        try:
            recipe = self._catalog.recipe_from_request(
                request.WhichOneof("recipe"), request.recipe_yaml, request.recipe_name, request.source_name
            ).recipe
        except RecipeInvalid as error:
            return recipe_pb.ValidateRecipeResponse(valid=False, problems=[problem_to_proto(p) for p in error.problems])
        return recipe_pb.ValidateRecipeResponse(valid=True, recipe_name=recipe.name, recipe_version=recipe.version)

    @reports_errors
    async def CompileRecipe(
        self, request: recipe_pb.CompileRecipeRequest, context: grpc.aio.ServicerContext
    ) -> recipe_pb.CompileRecipeResponse:
        loaded = load_or_report(self._catalog, request.WhichOneof("recipe"), request.recipe_yaml, request.recipe_name)
        plan = compile_recipe(loaded.recipe, loaded.registry)
        plan_json = plan.to_json()
        structured = struct_pb2.Struct()
        structured.update(json.loads(plan_json))
        return recipe_pb.CompileRecipeResponse(plan_json=plan_json, plan=structured, mermaid=to_mermaid(plan))

    @reports_errors
    async def ListRecipes(
        self, request: recipe_pb.ListRecipesRequest, context: grpc.aio.ServicerContext
    ) -> recipe_pb.ListRecipesResponse:
        if request.page_size < 0:
            raise InvalidRequest("page_size", f"must be 0 (default {DEFAULT_PAGE_SIZE}) or more, got {request.page_size}")
        page_size = min(request.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        offset = 0
        if request.page_token:
            if not request.page_token.isdigit():
                raise InvalidRequest("page_token", "is not a token returned by ListRecipes")
            offset = int(request.page_token)
        entries = self._catalog.entries()
        page = entries[offset : offset + page_size]
        next_token = str(offset + page_size) if offset + page_size < len(entries) else ""
        return recipe_pb.ListRecipesResponse(
            recipes=[
                recipe_pb.RecipeInfo(
                    name=entry.name,
                    version=entry.recipe.version if entry.recipe else "",
                    description=entry.recipe.description if entry.recipe else "",
                    inputs=list(entry.recipe.inputs) if entry.recipe else [],
                    source=entry.source,
                    valid=entry.recipe is not None,
                    problems=[problem_to_proto(p) for p in entry.problems],
                )
                for entry in page
            ],
            next_page_token=next_token,
        )
