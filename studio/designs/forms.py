from django import forms

from studio.accounts.models import Role, Team
from studio.catalog.selectors import team_catalog
from studio.designs.examples import list_examples
from studio.designs.spec_sheet import VariantMode


class ProjectCreateForm(forms.Form):
    team = forms.ModelChoiceField(queryset=Team.objects.none())
    name = forms.CharField(max_length=200)
    description = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), required=False, max_length=5_000
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        # Only teams where the user may create things are offered.
        teams = Team.objects.filter(
            memberships__user=user, memberships__role__in=[Role.OWNER, Role.EDITOR]
        )
        self.fields["team"].queryset = teams
        if len(teams) == 1:
            self.fields["team"].initial = teams[0].pk


class DesignFromExampleForm(forms.Form):
    example = forms.ChoiceField(choices=())
    name = forms.CharField(max_length=200)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["example"].choices = [(e.slug, e.name) for e in list_examples()]


class DesignBlankForm(forms.Form):
    name = forms.CharField(max_length=200, label="Name")


class DesignImportForm(forms.Form):
    name = forms.CharField(max_length=200, label="Name")
    file = forms.FileField(
        label="Spec file", help_text="JSON (the spec), or CSV / XLSX with columns path, value."
    )


class DesignFromSystemForm(forms.Form):
    system = forms.ChoiceField(choices=(), label="Catalog system")
    systems = forms.IntegerField(
        min_value=1, max_value=20_000, initial=32, label="Number of systems (servers or racks)"
    )
    name = forms.CharField(max_length=200, label="Name")

    def __init__(self, *args, systems, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["system"].choices = [
            (s.id, f"{s.name} ({s.gpus_per_system} GPUs)") for s in systems
        ]


def design_create_forms(project, data=None, files=None) -> dict:
    """The four ways to create a design, as (unbound) forms: the project page shows them."""
    systems = team_catalog(project.team_id).systems.values()
    return {
        "example_form": DesignFromExampleForm(data),
        "system_form": DesignFromSystemForm(data, prefix="system", systems=systems),
        "blank_form": DesignBlankForm(data, prefix="blank"),
        "import_form": DesignImportForm(data, files, prefix="import"),
    }


class DesignRevertForm(forms.Form):
    revision = forms.IntegerField(min_value=1, max_value=2**31 - 1)

    def __init__(self, *args, design, **kwargs):
        super().__init__(*args, **kwargs)
        self.design = design

    def clean_revision(self):
        revision = self.design.revisions.filter(number=self.cleaned_data["revision"]).first()
        if revision is None:
            raise forms.ValidationError("No such revision")
        return revision


class DesignCloneForm(forms.Form):
    name = forms.CharField(max_length=200, required=False)


class RenameForm(forms.Form):
    """Rename and describe a project or a design (the editor's Name field renames too)."""

    name = forms.CharField(max_length=200)
    description = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), required=False, max_length=5_000
    )


class DeleteConfirmForm(forms.Form):
    confirm = forms.CharField(max_length=200, label="Type the exact name to confirm", strip=False)


def _revision_choices(design) -> list[tuple[int, str]]:
    return [
        (r.number, f"r{r.number} · {r.message[:40]}" if r.message else f"r{r.number}")
        for r in design.revisions.order_by("-number")
    ]


class _SheetUploadForm(forms.Form):
    file = forms.FileField(label="Sheet (CSV or XLSX)")
    base_revision = forms.TypedChoiceField(coerce=int, choices=(), label="Apply onto")

    def __init__(self, *args, design, **kwargs):
        super().__init__(*args, **kwargs)
        self.design = design
        self.fields["base_revision"].choices = _revision_choices(design)

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if not upload.name.lower().endswith((".csv", ".xlsx")):
            raise forms.ValidationError("Upload a .csv or .xlsx file.")
        return upload

    def clean_base_revision(self):
        return self.design.revisions.get(number=self.cleaned_data["base_revision"])


class SpecPatchForm(_SheetUploadForm):
    """A partial spec sheet (rows path, value) applied onto a revision: one new revision."""

    message = forms.CharField(max_length=300, required=False, label="Message")


class VariantsForm(_SheetUploadForm):
    """One row per variant, one column per spec path (and optionally `name`)."""

    mode = forms.ChoiceField(
        choices=VariantMode.CHOICES,
        initial=VariantMode.DESIGNS,
        widget=forms.RadioSelect,
        label="Each row becomes",
    )


def design_sheet_forms(design, data=None, files=None) -> dict:
    return {
        "patch_form": SpecPatchForm(data, files, design=design, prefix="patch"),
        "variants_form": VariantsForm(data, files, design=design, prefix="variants"),
    }
