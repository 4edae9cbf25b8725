"""A run directory's layout: the one place its file names are written down. The executor writes
these files, the report and the service read them, `verity traces` finds the traces by name.

    order.json       the run order: the plan, its inputs (a secret one as its marker), labels,
                     session files, run id and directory: exactly what ran
    events.jsonl     every event, one per line, flushed as it is emitted
    plans.json       the compiled plan plus plan_repairs / last_failure_summary from replans
    executions.json  one record per executed state
    output.json      the structured output and whether it is valid
    verdict.json     the final verdict
    report.html      the self-contained report of the run
    trace.jsonl      the run's OpenTelemetry spans as OTLP/JSON
    artifacts/       screenshots, large text and HTML (written by the artifact store)
"""

ORDER_FILE = "order.json"
EVENTS_FILE = "events.jsonl"
PLANS_FILE = "plans.json"
EXECUTIONS_FILE = "executions.json"
OUTPUT_FILE = "output.json"
VERDICT_FILE = "verdict.json"
REPORT_FILE = "report.html"
TRACE_FILE = "trace.jsonl"
ARTIFACTS_DIR = "artifacts"

# Written as the run ends (FINAL_FILES), and complete once its last state is recorded (RECORD_FILES).
FINAL_FILES = (VERDICT_FILE, OUTPUT_FILE)
RECORD_FILES = (PLANS_FILE, EXECUTIONS_FILE)
