"""Hostile input over every URL pattern: no input makes the studio answer with a 5xx.

Every pattern of the URL conf (Django's admin aside: its own code, and the owner is not staff)
is filled with real ids of the owner's objects, another team's ids and ids that are not ids
(`²`, `٣`, 20 digits), then sent GETs with hostile query parameters, form POSTs with every form
field set to a hostile value, and JSON bodies (NUL, over-long strings, 5,000-digit integers,
10,000-deep nesting, Infinity). Format suffixes come from the router's patterns themselves."""

import json
import re
import uuid

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.resolvers import RoutePattern

from studio.core.models import AuditEvent
from studio.designs.models import Design
from tests.conftest import example_spec

pytestmark = pytest.mark.django_db

DEEP_JSON = "[" * 10_000 + "]" * 10_000
HUGE_INT = "9" * 5_000
HOSTILE_VALUES = [
    "a\x00b",
    "x" * 6_000,  # over every form limit, under Django's 2.5 MB body limit with all fields
    "²",
    "٣",
    HUGE_INT,
    "99999999999999999999",
    "-1",
    "2030-02-31",
    '<a href="https://evil.example">click</a>',
    DEEP_JSON,
]
HOSTILE_IDS = ["²", "٣", "99999999999999999999", "9223372036854775808", "0"]
QUERY_KEYS = [
    "limit",
    "offset",
    "team",
    "project",
    "revision",
    "from",
    "to",
    "design",
    "status",
    "kind",
    "format",
    "token",
]
EDITOR_ACTIONS = [
    "add:regions.sites",
    "add:name.nope",
    "add:does.not.exist",
    "remove:regions.sites:²",
    "remove:regions.sites:99999999999999999999",
    "remove:nope:1",
    "frobnicate:x",
    "add:" + "a." * 5_000,
]
NOT_PATHS = [
    "/nope/",
    "/designs/1/edit/nope/",
    "/api/nope/",
    "/api/designs/1/nope/",
    "/designs/%00/",
    "/projects/%C2%B2/",
    "/runs/99999999999999999999/",
    "/api/designs/99999999999999999999/",
]


def _form_field_names() -> set[str]:
    """Every field of every form and serializer of the studio (with the prefixes the project
    page gives its create forms), plus control fields."""
    from django import forms as django_forms

    import studio.accounts.forms
    import studio.api.forms
    import studio.api.serializers
    import studio.catalog.forms
    import studio.designs.forms
    import studio.runs.forms

    names = {"form", "message", "file", "revoke", "action", "__action__", "old_password"}
    for module in (
        studio.accounts.forms,
        studio.api.forms,
        studio.catalog.forms,
        studio.designs.forms,
        studio.runs.forms,
    ):
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, django_forms.BaseForm):
                for name in obj.base_fields:
                    names.update({name, f"system-{name}", f"blank-{name}", f"import-{name}"})
    for obj in vars(studio.api.serializers).values():
        declared = getattr(obj, "_declared_fields", None)
        if isinstance(declared, dict):
            names.update(declared)
        meta = getattr(obj, "Meta", None)
        names.update(getattr(meta, "fields", []) or [])
    names.update({"username", "password", "new_password1", "new_password2"})
    return names


def _editor_paths() -> list[str]:
    from studio.designs.editor.codec import spec_to_form

    return list(spec_to_form(example_spec()))[:40]


def _patterns(resolver=None, trail=()):
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            if str(entry.pattern).startswith("admin/"):
                continue
            yield from _patterns(entry, (*trail, entry.pattern))
        elif isinstance(entry, URLPattern):
            yield (*trail, entry.pattern)


def _fill(pattern, values: dict[str, str]) -> str:
    text = str(pattern)
    if isinstance(pattern, RoutePattern):  # a route: <conv:name>
        return re.sub(r"<(?:\w+:)?(\w+)>", lambda m: values.get(m.group(1), "1"), text)
    text = text.removeprefix("^").removesuffix("$").replace("/?", "/")
    text = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda m: values.get(m.group(1), "1"), text)
    return text.replace("\\.", ".")


def _url(patterns, values) -> str:
    return "/" + "".join(_fill(p, values) for p in patterns)


def _kind(patterns) -> str:
    text = "".join(str(p) for p in patterns)
    for word, kind in (
        ("runs", "run"),
        ("designs", "design"),
        ("projects", "project"),
        ("teams", "team"),
        ("catalog-entries", "entry"),
    ):
        if word in text:
            return kind
    return "design"


@pytest.fixture
def world(team_a, team_b, design_in, evaluated):
    from studio.catalog import services as catalog_services
    from tests.conftest import team_gpu_entry

    alice, alpha = team_a
    bob, bravo = team_b
    design, run = evaluated
    entry = catalog_services.team_entry_create(
        actor=alice, team=alpha, kind="gpus", data=team_gpu_entry()
    )
    other_design = design_in(bob, bravo, name="Bravo design")
    bare = Design.objects.create(project=design.project, name="No revision yet")
    own = {
        "run": run.pk,
        "design": design.pk,
        "project": design.project_id,
        "team": alpha.pk,
        "entry": entry.pk,
    }
    other = {
        "run": run.pk + 10_000,
        "design": other_design.pk,
        "project": other_design.project_id,
        "team": bravo.pk,
        "entry": entry.pk + 10_000,
    }
    return {"alice": alice, "own": own, "other": other, "bare": bare}


def test_no_hostile_input_gets_a_server_error(world):
    client = Client(raise_request_exception=False)
    fields = sorted(_form_field_names()) + _editor_paths()
    server_errors: list[str] = []
    sent = 0

    def send(method: str, url: str, **kwargs):
        nonlocal sent
        sent += 1
        response = getattr(client, method)(url, **kwargs)
        if response.status_code >= 500:
            server_errors.append(f"{method.upper()} {url[:120]} -> {response.status_code}")
        return response

    patterns = [p for p in _patterns() if "logout" not in str(p[-1])]
    assert len(patterns) >= 40
    for trail in patterns:
        client.force_login(world["alice"])
        kind = _kind(trail)
        is_api = str(trail[0]).startswith("api/")
        suffixed = "(?P<format>" in "".join(str(p) for p in trail)
        own_formats = ("json", "api", "xyz") if suffixed else ("json",)
        for ids, formats in ((world["own"], own_formats), (world["other"], ("json",))):
            for fmt_value in formats:
                values = {
                    "pk": str(ids[kind]),
                    "fmt": "csv",
                    "table": "sites",
                    "format": fmt_value,
                }
                url = _url(trail, values)
                send("get", url)
                send("post", url, data={name: "1" for name in fields})
                if ids is world["other"]:
                    continue
                for value in HOSTILE_VALUES:
                    query = "&".join(f"{k}={value[:2_000]}" for k in QUERY_KEYS)
                    send("get", f"{url}?{query}")
                    send("post", url, data={name: value for name in fields})
                if is_api:
                    for body in (
                        DEEP_JSON,
                        f'{{"team": {HUGE_INT}, "project": {HUGE_INT}, "name": "n"}}',
                        json.dumps({f: "a\x00b" for f in fields}),
                        json.dumps({f: "x" * 20_000 for f in fields}),
                        '{"spec": {"name": "x", "regions": {"sites": [1e999]}}, "name": "n"}',
                        f'{{"spec": {DEEP_JSON}, "name": "n", "project": 1}}',
                        '{"data": NaN, "team": 1, "kind": "gpus"}',
                        "not json at all",
                    ):
                        for method in ("post", "put", "patch"):
                            send(method, url, data=body, content_type="application/json")
                    send("delete", url)
        if "/edit/" in _url(trail, {"pk": "1", "fmt": "csv", "table": "x", "format": "json"}):
            url = _url(trail, {"pk": str(world["own"]["design"])})
            for action in EDITOR_ACTIONS:
                send("post", url, data={"__action__": action, **{p: "1" for p in fields}})
        for bad_id in HOSTILE_IDS:
            text = "".join(str(p) for p in trail)
            if "pk" not in text:
                break
            url = _url(trail, {"pk": bad_id, "fmt": "csv", "table": "sites", "format": "json"})
            assert send("get", url).status_code in (404, 405), url  # 405: a POST-only action
            send("post", url, data={"name": "x"})
    for path in NOT_PATHS:
        assert send("get", path).status_code == 404, path
    bare = world["bare"].pk
    for url in (f"/designs/{bare}/evaluate/", f"/api/designs/{bare}/evaluate/"):
        send("post", url)

    print(f"fuzz: {sent} requests over {len(patterns)} URL patterns, {len(server_errors)} 5xx")
    assert server_errors == [], "\n".join(server_errors[:50])
    assert sent > 2_000


# ---- specific answers ------------------------------------------------------------------------


def test_ids_that_are_not_ids_are_404s_everywhere(client, world):
    client.force_login(world["alice"])
    for bad in ("²", "٣", "99999999999999999999"):
        assert client.get(f"/catalog/?team={bad}").status_code == 404
        assert client.get(f"/compare/?design={bad}&design={bad}").status_code == 400
        design = world["own"]["design"]
        assert client.get(f"/designs/{design}/diff/?from={bad}").status_code == 404
        assert client.get(f"/api/designs/{design}/diff/?from={bad}").status_code == 400
        assert client.get(f"/api/catalog/?team={bad}").status_code == 404
        response = client.get(f"/api/projects/?team={bad}")
        assert response.status_code == 400 and "team" in response.json()
        revert = client.post(f"/designs/{design}/revert/", {"revision": bad})
        assert revert.status_code == 404
        tokens = client.post("/account/tokens/", {"revoke": bad})
        assert tokens.status_code == 302
    assert client.get("/api/runs/?limit=99999999999999999999").status_code == 200
    assert client.get("/api/runs/?limit=99999&offset=99999999999999999999").status_code == 200


def test_other_teams_ids_are_answered_like_missing_ones(client, world):
    client.force_login(world["alice"])
    other, missing = world["other"], {k: v + 100_000 for k, v in world["other"].items()}
    for path, key in (
        ("/api/projects/?team={}", "team"),
        ("/api/designs/?project={}", "project"),
        ("/api/catalog-entries/?team={}", "team"),
        ("/api/catalog/?team={}", "team"),
        ("/catalog/?team={}", "team"),
        ("/teams/{}/", "team"),
        ("/projects/{}/", "project"),
        ("/designs/{}/", "design"),
    ):
        a = client.get(path.format(other[key]))
        b = client.get(path.format(missing[key]))
        assert a.status_code == b.status_code, path
        if a["Content-Type"].startswith("application/json"):
            assert a.json() == b.json(), path
    for body in (
        {"team": other["team"], "name": "Sneaky"},
        {"team": missing["team"], "name": "Sneaky"},
    ):
        response = client.post("/api/projects/", body, content_type="application/json")
        assert response.status_code == 404
        assert response.json() == {"detail": "No such team among yours."}
    for project in (other["project"], missing["project"]):
        response = client.post(
            "/api/designs/",
            {"project": project, "name": "x", "spec": example_spec()},
            content_type="application/json",
        )
        assert response.status_code == 404
        assert response.json() == {"detail": "No such project among your teams."}
    for team in (other["team"], missing["team"]):
        response = client.post(
            "/api/catalog-entries/",
            {"team": team, "kind": "gpus", "data": {}},
            content_type="application/json",
        )
        assert response.status_code == 404


def test_hostile_bodies_get_clear_field_errors(client, world):
    client.force_login(world["alice"])
    team = world["own"]["team"]
    deep = client.post("/api/projects/", DEEP_JSON, content_type="application/json")
    assert deep.status_code == 400 and "nested" in deep.json()["detail"]
    huge = client.post(
        "/api/projects/",
        f'{{"team": {HUGE_INT}, "name": "n"}}',
        content_type="application/json",
    )
    assert huge.status_code == 400 and "digits" in huge.json()["detail"]
    nul = client.post(
        "/api/projects/", {"team": team, "name": "a\x00b"}, content_type="application/json"
    )
    assert nul.status_code == 400 and "name" in nul.json()
    long = client.post(
        "/api/projects/",
        {"team": team, "name": "n", "description": "x" * 6_000},
        content_type="application/json",
    )
    assert long.status_code == 400 and "description" in long.json()
    spec = {**example_spec(), "name": "a\x00b"}
    response = client.post(
        "/api/designs/",
        {"project": world["own"]["project"], "name": "n", "spec": spec},
        content_type="application/json",
    )
    assert response.status_code == 400 and "NUL" in str(response.json()["spec"])
    form = client.post("/", {"team": team, "name": "a\x00b"})
    assert form.status_code == 200 and "Null characters are not allowed" in form.text
    form = client.post("/", {"team": team, "name": "x" * 201})
    assert "at most 200 characters" in form.text
    design = world["own"]["design"]
    risk = client.post(
        f"/designs/{design}/risks/accept/",
        {"check_id": "x", "reason": "r", "owner": "o", "expires": "2030-02-31"},
        follow=True,
    )
    assert "a date that exists" in risk.text
    editor = client.post(f"/designs/{design}/edit/", {"name": "a\x00b"})
    assert editor.status_code == 400 and "NUL" in editor.text
    unknown = client.post(f"/designs/{design}/edit/", {"__action__": "add:name.nope"})
    assert unknown.status_code == 404


def test_format_suffixes_and_designs_without_revision(client, world):
    client.force_login(world["alice"])
    design = world["own"]["design"]
    assert client.get(f"/api/designs/{design}/revisions.json").status_code == 200
    assert client.get(f"/api/designs/{design}/diff.json").status_code == 200
    assert client.get(f"/api/designs/{design}/diff.xyz").status_code == 404
    bare = world["bare"].pk
    response = client.post(f"/api/designs/{bare}/evaluate.json")
    assert response.status_code == 409 and "no revision" in response.json()["detail"]
    assert client.post(f"/designs/{bare}/evaluate/").status_code == 302


def test_request_ids_are_generated_by_the_server(client, world):
    client.force_login(world["alice"])
    response = client.post(
        "/api/projects/",
        {"team": world["own"]["team"], "name": "Traced"},
        content_type="application/json",
        headers={"X-Request-ID": "forged\r\nid"},
    )
    assert response.status_code == 201
    event = AuditEvent.objects.get(action="project.create", target_id=str(response.json()["id"]))
    assert event.request_id == response["X-Request-ID"] != "forged\r\nid"
    assert uuid.UUID(event.request_id)


def test_error_pages_do_not_list_url_patterns(client, world):
    client.force_login(world["alice"])
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert "URLconf" not in response.text and "<id:pk>" not in response.text
    assert "Not found" in response.text


def test_every_form_text_field_has_a_length_limit():
    from django import forms as django_forms

    import studio.accounts.forms
    import studio.api.forms
    import studio.catalog.forms
    import studio.designs.forms
    import studio.runs.forms

    for module in (
        studio.accounts.forms,
        studio.api.forms,
        studio.catalog.forms,
        studio.designs.forms,
        studio.runs.forms,
    ):
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, django_forms.BaseForm):
                for name, field in obj.base_fields.items():
                    if isinstance(field, django_forms.CharField):
                        assert field.max_length, f"{obj.__name__}.{name} has no max_length"
                        assert any(
                            type(v).__name__ == "ProhibitNullCharactersValidator"
                            for v in field.validators
                        ), f"{obj.__name__}.{name} accepts NUL"


def test_design_names_are_plain_text_in_chart_labels():
    from studio.core.inputs import plain_label

    label = plain_label('<a href="https://evil.example">Design</a> <b>x</b> a<b')
    assert "<" not in label and ">" not in label and "href" not in label
    assert label.startswith("Design")


@pytest.mark.parametrize(
    ("stack", "field", "named"),
    [
        # the cross-entropy kernel is an eager PyTorch choice
        ({"name": "megatron-core-te-2024", "cross_entropy": "bf16"}, "cross_entropy", "torchtitan"),
        # the expert all-to-all overlap is Megatron-Core's combined 1F1B
        ({"name": "torchtitan", "ep_comm_overlap": True}, "ep_comm_overlap", "megatron-core"),
        # the FP8 scaling recipe is a choice of FP8 runs (the example trains in BF16)
        ({"name": "megatron-core-te-2024", "fp8_recipe": "current"}, "fp8_recipe", "precision fp8"),
    ],
)
def test_a_stack_option_on_the_wrong_stack_is_a_field_error_and_saves_nothing(
    client, world, stack, field, named
):
    """A stack option on a stack that does not have it: the API answers 400 naming
    workload.software_stack.<option> and the stacks it applies to, and no design is
    created."""

    spec = example_spec()
    spec["workload"]["software_stack"] = stack
    message = _refused_field(client, world, spec, f"spec.workload.software_stack.{field}")
    assert named in message


def _refused_field(client, world, spec, path: str) -> str:
    """POST `spec` as a new design: the API answers 400 with one message for `path` and
    saves nothing; returns the message."""
    client.force_login(world["alice"])
    before = Design.objects.count()
    response = client.post(
        "/api/designs/",
        {"project": world["own"]["project"], "name": "refused", "spec": spec},
        content_type="application/json",
    )
    assert response.status_code == 400
    (message,) = response.json()[path]
    assert Design.objects.count() == before
    return message


def test_pipeline_runs_that_do_not_divide_the_steps_are_a_field_error(client, world):
    """workload.parallelism.pipeline_microbatches must divide the step's micro-batches per
    pipeline: the API answers 400 naming the field and the count, and saves nothing."""
    spec = example_spec("gb200-nvl72-multirack")  # PP 9 x DP 64, 4608 sequences: 72 per pipeline
    spec["workload"]["parallelism"]["pipeline_microbatches"] = 10
    message = _refused_field(client, world, spec, "spec.workload.parallelism.pipeline_microbatches")
    assert "= 72)" in message
