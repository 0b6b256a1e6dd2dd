"""In the browser: turn a pre-training design into a packed LoRA fine-tuning run in the
editor (sequence packing, LoRA on the QKV projection only), save it, and read on the results
page what the engine assumed (the adapters it added, the per-document attention)."""

import pytest

from studio.runs import services as run_services
from tests.e2e.conftest import log_in, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_packed_lora_fine_tuning_from_the_editor_to_the_results(
    live_server, page, team_a, design_in
):
    alice, alpha = team_a
    design = design_in(alice, alpha)
    base = live_server.url
    log_in(page, base)
    page.goto(f"{base}/designs/{design.pk}/edit/")
    page.fill('input[name="workload.packed_document_tokens"]', "200")
    page.check('input[name="__on__.workload.fine_tuning"]')
    page.select_option('select[name="workload.fine_tuning.mode"]', "lora")
    page.fill('input[name="workload.fine_tuning.lora_rank"]', "32")
    page.select_option('select[name="workload.fine_tuning.lora_targets"]', "qkv")
    screenshot(page, "editor-fine-tuning")
    page.fill("#id_message", "packed SQuAD, LoRA on QKV")
    page.click("#save-revision")
    page.wait_for_url(f"{base}/designs/{design.pk}/")
    revision = design.revisions.order_by("-number").first()
    workload = revision.spec["workload"]
    assert workload["packed_document_tokens"] == 200
    assert workload["fine_tuning"] == {
        "mode": "lora",
        "lora_rank": 32,
        "lora_targets": "qkv",
        "frozen_layers": 0,
    }
    run = run_services.run_enqueue(actor=alice, revision=revision, dispatch=False)
    run_services.run_execute(run_id=run.pk)
    page.goto(f"{base}/runs/{run.pk}/")
    warnings = page.locator("ul.warnings")
    warnings.first.scroll_into_view_if_needed()
    text = warnings.first.inner_text()
    assert "rank-32 adapters on the QKV projection" in text
    screenshot(page, "results-fine-tuning")
    assert page.console_errors == []
