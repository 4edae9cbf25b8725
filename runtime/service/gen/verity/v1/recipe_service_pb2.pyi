from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ValidateRecipeRequest(_message.Message):
    __slots__ = ("recipe_yaml", "recipe_name", "source_name")
    RECIPE_YAML_FIELD_NUMBER: _ClassVar[int]
    RECIPE_NAME_FIELD_NUMBER: _ClassVar[int]
    SOURCE_NAME_FIELD_NUMBER: _ClassVar[int]
    recipe_yaml: str
    recipe_name: str
    source_name: str
    def __init__(self, recipe_yaml: _Optional[str] = ..., recipe_name: _Optional[str] = ..., source_name: _Optional[str] = ...) -> None: ...

class ValidateRecipeResponse(_message.Message):
    __slots__ = ("valid", "problems", "recipe_name", "recipe_version")
    VALID_FIELD_NUMBER: _ClassVar[int]
    PROBLEMS_FIELD_NUMBER: _ClassVar[int]
    RECIPE_NAME_FIELD_NUMBER: _ClassVar[int]
    RECIPE_VERSION_FIELD_NUMBER: _ClassVar[int]
    valid: bool
    problems: _containers.RepeatedCompositeFieldContainer[RecipeProblem]
    recipe_name: str
    recipe_version: str
    def __init__(self, valid: _Optional[bool] = ..., problems: _Optional[_Iterable[_Union[RecipeProblem, _Mapping]]] = ..., recipe_name: _Optional[str] = ..., recipe_version: _Optional[str] = ...) -> None: ...

class RecipeProblem(_message.Message):
    __slots__ = ("source", "line", "column", "field_path", "message", "code")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    FIELD_PATH_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    source: str
    line: int
    column: int
    field_path: str
    message: str
    code: str
    def __init__(self, source: _Optional[str] = ..., line: _Optional[int] = ..., column: _Optional[int] = ..., field_path: _Optional[str] = ..., message: _Optional[str] = ..., code: _Optional[str] = ...) -> None: ...

class CompileRecipeRequest(_message.Message):
    __slots__ = ("recipe_yaml", "recipe_name")
    RECIPE_YAML_FIELD_NUMBER: _ClassVar[int]
    RECIPE_NAME_FIELD_NUMBER: _ClassVar[int]
    recipe_yaml: str
    recipe_name: str
    def __init__(self, recipe_yaml: _Optional[str] = ..., recipe_name: _Optional[str] = ...) -> None: ...

class CompileRecipeResponse(_message.Message):
    __slots__ = ("plan_json", "plan", "mermaid")
    PLAN_JSON_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    MERMAID_FIELD_NUMBER: _ClassVar[int]
    plan_json: str
    plan: _struct_pb2.Struct
    mermaid: str
    def __init__(self, plan_json: _Optional[str] = ..., plan: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., mermaid: _Optional[str] = ...) -> None: ...

class ListRecipesRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListRecipesResponse(_message.Message):
    __slots__ = ("recipes", "next_page_token")
    RECIPES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    recipes: _containers.RepeatedCompositeFieldContainer[RecipeInfo]
    next_page_token: str
    def __init__(self, recipes: _Optional[_Iterable[_Union[RecipeInfo, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class RecipeInfo(_message.Message):
    __slots__ = ("name", "version", "description", "inputs", "source", "valid", "problems")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    INPUTS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    VALID_FIELD_NUMBER: _ClassVar[int]
    PROBLEMS_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    description: str
    inputs: _containers.RepeatedScalarFieldContainer[str]
    source: str
    valid: bool
    problems: _containers.RepeatedCompositeFieldContainer[RecipeProblem]
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., description: _Optional[str] = ..., inputs: _Optional[_Iterable[str]] = ..., source: _Optional[str] = ..., valid: _Optional[bool] = ..., problems: _Optional[_Iterable[_Union[RecipeProblem, _Mapping]]] = ...) -> None: ...
