"""Where hooks-otel exports: config over the standard OTEL_* variables; bad config named clearly; importing the
package does not import the OpenTelemetry SDK."""

from __future__ import annotations

import subprocess
import sys

import pytest
from amplifier_module_hooks_otel import OtelConfig, mount, resolve_settings

from amplifier_core.module_config import ModuleConfigError
from amplifier_core.testing import MockCoordinator


def settings(config: dict | None = None, **environ: str):
    return resolve_settings(OtelConfig(**(config or {})), environ)


def test_the_config_endpoint_wins_over_the_environment() -> None:
    resolved = settings({"endpoint": "http://collector:4318/"}, OTEL_EXPORTER_OTLP_ENDPOINT="http://other:4318")
    assert resolved.traces_endpoint == "http://collector:4318/v1/traces"
    assert resolved.metrics_endpoint == "http://collector:4318/v1/metrics"


def test_the_base_variable_gives_both_signals_and_a_signal_variable_overrides_its_own() -> None:
    resolved = settings(OTEL_EXPORTER_OTLP_ENDPOINT="http://base:4318",
                        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="http://traces:9999/custom")
    assert resolved.traces_endpoint == "http://traces:9999/custom"
    assert resolved.metrics_endpoint == "http://base:4318/v1/metrics"


def test_a_traces_endpoint_alone_sends_no_metrics_anywhere() -> None:
    resolved = settings(OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="http://traces:4318/v1/traces")
    assert resolved.traces_endpoint == "http://traces:4318/v1/traces" and resolved.metrics_endpoint is None


def test_mounted_with_nothing_set_exports_to_the_otlp_default() -> None:
    resolved = settings()
    assert resolved.traces_endpoint == "http://localhost:4318/v1/traces"
    assert resolved.service_name == "amplifier" and resolved.capture_content is False


def test_service_name_capture_and_disable_come_from_the_standard_variables() -> None:
    resolved = settings(OTEL_SERVICE_NAME="my-agent", OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="True")
    assert resolved.service_name == "my-agent" and resolved.capture_content is True
    assert settings({"capture_content": False}, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="true") \
        .capture_content is False
    assert settings(OTEL_SDK_DISABLED="true") is None


async def test_an_unknown_or_bad_key_is_one_message_naming_module_key_and_fix() -> None:
    with pytest.raises(ModuleConfigError, match=r"hooks-otel config: unknown key 'endpiont' \(did you mean 'endpoint'"):
        await mount(MockCoordinator(), {"endpiont": "http://x"})
    with pytest.raises(ModuleConfigError, match="hooks-otel config: 'flush_timeout'"):
        await mount(MockCoordinator(), {"flush_timeout": 0})


def test_importing_the_package_does_not_import_the_sdk() -> None:
    probe = ("import sys, amplifier_module_hooks_otel; "
             "print(sorted(m for m in sys.modules if m.startswith(('opentelemetry.sdk', 'opentelemetry.exporter'))))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
