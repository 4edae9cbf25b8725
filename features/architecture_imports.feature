Feature: The runtime's imports point one way
  runtime/ reads as a pipeline: recipe -> plan -> execute -> browser / guard / llm -> events ->
  service. A module imports only what is upstream of it, so it can be read, tested and changed
  without the modules that use it. Every import counts: at module level, under TYPE_CHECKING,
  inside a function, and through a package's re-exports.

  @ARCH-001
  Scenario: No module of runtime/ imports itself through a chain of imports
    Given the import graph of runtime/
    Then it has no import cycle

  @ARCH-001
  Scenario: A cycle hidden under TYPE_CHECKING, inside a function and behind a re-export is reported
    Given the file "shop/__init__.py":
      """
      from shop.checkout import Checkout
      """
    And the file "shop/cart.py":
      """
      from typing import TYPE_CHECKING

      if TYPE_CHECKING:
          from shop import Checkout
      """
    And the file "shop/checkout.py":
      """
      class Checkout:
          def total(self) -> int:
              from .cart import Cart
              return 0
      """
    When I read the import graph of "shop"
    Then it reports the import cycle "shop.cart -> shop.checkout -> shop.cart"
    And the cycle is shown with the imports at "shop/cart.py:4" and "shop/checkout.py:3"

  @ARCH-002
  Scenario: Upstream areas never import the areas that drive them
    Given the import graph of runtime/
    Then no module of recipe, plan, outcomes, events, artifacts, browser, guard or llm imports execute, service, cli or gate

  @ARCH-002
  Scenario: A browser module that imports the executor inside a function is reported
    Given the file "runtime/browser/driver.py":
      """
      def start():
          from runtime.execute import run
          return run
      """
    And the file "runtime/execute/__init__.py":
      """
      from runtime.execute.run import run
      """
    And the file "runtime/execute/run.py":
      """
      def run():
          return None
      """
    When I read the import graph of "runtime"
    Then "runtime/browser/driver.py:2" is reported for importing "runtime.execute.run" downstream

  @ARCH-003
  Scenario: Inside runtime/browser each layer is a folder and imports only the layers below it
    Given the import graph of runtime/
    Then runtime/browser's modules import only their own layer and the ones below: vocabulary, scripts, launch, tab, action handlers, session, supply

  @ARCH-003
  Scenario: A launcher that names the session above it, only for a type, is reported
    Given the file "runtime/browser/launch.py":
      """
      from typing import TYPE_CHECKING

      if TYPE_CHECKING:
          from runtime.browser.session import BrowserSession
      """
    And the file "runtime/browser/session.py":
      """
      BrowserSession = object
      """
    When I read the import graph of "runtime"
    Then it has no import cycle
    And "runtime/browser/launch.py:4" is reported for importing the layer above it, "session"

  @ARCH-004
  Scenario: Inside runtime/service each room imports only the rooms below it
    Given the import graph of runtime/
    Then runtime/service's modules import only their own room and the ones below: gen, config, runs, replicas, api

  @ARCH-004
  Scenario: A run room that names the gRPC face, only for a type, is reported
    Given the file "runtime/service/runs/supervisor.py":
      """
      from typing import TYPE_CHECKING

      if TYPE_CHECKING:
          from runtime.service.api.server import VerityServer
      """
    And the file "runtime/service/api/server.py":
      """
      VerityServer = object
      """
    When I read the import graph of "runtime"
    Then "runtime/service/runs/supervisor.py:4" is reported for importing the service room above it, "api"

  @ARCH-004
  Scenario: Hosting runs knows nothing of gRPC
    Given the source of runtime/
    Then none of the modules of runtime/service/runs, runtime/service/replicas or runtime/service/config imports grpc, grpc_status, grpc_health, grpc_reflection, google.rpc, opentelemetry.instrumentation.grpc or runtime.service.gen

  @ARCH-004
  Scenario: A replica module that imports grpc inside a function, or the generated stubs, is reported
    Given the file "runtime/service/replicas/commands.py":
      """
      from runtime.service.gen.verity.v1 import agent_service_pb2

      def ask():
          import grpc.aio
          return grpc.aio
      """
    When I read the source of "runtime"
    Then "runtime/service/replicas/commands.py:1" is reported for importing "runtime.service.gen.verity.v1"
    And "runtime/service/replicas/commands.py:4" is reported for importing "grpc.aio"

  @ARCH-005
  Scenario: The executor imports nothing from the recipe language
    Given the import graph of runtime/
    Then no module of execute imports recipe
    And no module of template imports recipe, plan or execute

  @ARCH-005
  Scenario: An executor module that reads the recipe inside a function is reported
    Given the file "runtime/execute/values.py":
      """
      def fill():
          from runtime.recipe.model import Recipe
          return Recipe
      """
    And the file "runtime/recipe/model.py":
      """
      Recipe = object
      """
    When I read the import graph of "runtime"
    Then "runtime/execute/values.py:2" is reported for importing "runtime.recipe.model" from the recipe language

  @ARCH-005
  Scenario: Inside runtime/execute each room imports only the rooms below it
    Given the import graph of runtime/
    Then runtime/execute's modules import only their own room and the ones below: browser supply, step outcome, values, judges, record, context, reads, acts, agent, states, loop

  @ARCH-005
  Scenario: A judge that names the run context, only for a type, is reported
    Given the file "runtime/execute/judges/conditions.py":
      """
      from typing import TYPE_CHECKING

      if TYPE_CHECKING:
          from runtime.execute.context.run_context import RunContext
      """
    And the file "runtime/execute/context/run_context.py":
      """
      RunContext = object
      """
    When I read the import graph of "runtime"
    Then "runtime/execute/judges/conditions.py:4" is reported for importing the executor room above it, "context"
