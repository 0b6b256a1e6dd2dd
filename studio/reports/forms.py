"""The create-report form: 1-4 designs of the project, an optional baseline, title, summary."""

from django import forms

from studio.reports.services import MAX_DESIGNS


class ReportCreateForm(forms.Form):
    title = forms.CharField(max_length=200)
    summary = forms.CharField(widget=forms.Textarea(attrs={"rows": 6}), required=False)
    designs = forms.ModelMultipleChoiceField(
        queryset=None, widget=forms.CheckboxSelectMultiple, help_text="The first is the primary."
    )
    baseline = forms.ModelChoiceField(queryset=None, required=False, empty_label="(none)")

    def __init__(self, *args, designs_qs, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["designs"].queryset = designs_qs
        self.fields["baseline"].queryset = designs_qs

    def clean_designs(self):
        picked = self.cleaned_data["designs"]
        if len(picked) > MAX_DESIGNS:
            raise forms.ValidationError(f"Pick at most {MAX_DESIGNS} designs.")
        # The order of the ticked boxes as posted (the first is the primary design).
        order = [int(i) for i in self.data.getlist("designs") if str(i).isdigit()]
        return sorted(picked, key=lambda d: order.index(d.pk) if d.pk in order else 99)
