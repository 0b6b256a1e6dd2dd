"""Accept a failing security finding from the results page, then re-evaluate the design."""

from django.contrib import messages
from django.shortcuts import redirect

from studio.accounts.models import Role
from studio.accounts.scoping import ScopedActionView
from studio.designs import services as design_services
from studio.designs.selectors import designs_visible_to
from studio.runs import services
from studio.runs.forms import RiskAcceptForm


class DesignAcceptRiskView(ScopedActionView):
    """Accept a failing security finding (reason, owner, expiry), then re-evaluate."""

    scope_selector = designs_visible_to
    team_id_path = "project.team_id"

    def post(self, request, *args, **kwargs):
        design = self.get_object()
        self.require_role(design, Role.EDITOR)
        form = RiskAcceptForm(request.POST)
        valid = form.is_valid()  # empty fields are valid here: the service names what is missing
        data = {key: form.cleaned_data.get(key) for key in form.fields}
        try:
            if not valid:
                raise design_services.RiskAcceptanceInvalid(
                    {field: errors[0] for field, errors in form.errors.items()}
                )
            if design.latest_revision is None:
                raise design_services.RiskAcceptanceInvalid(
                    {"design": "it has no revision to evaluate yet"}
                )
            design_services.risk_accept(
                actor=request.user,
                design=design,
                check_id=data["check_id"] or "",
                reason=data["reason"] or "",
                owner=data["owner"] or "",
                expires=data["expires"],
            )
        except design_services.RiskAcceptanceInvalid as exc:
            for field, message in exc.errors.items():
                messages.error(request, f"Risk not accepted: {field} — {message}.")
            if data["run"]:
                return redirect("run-detail", pk=data["run"])
            return redirect("design-detail", pk=design.pk)
        messages.success(request, "Risk accepted and recorded; re-evaluating the design.")
        run = services.run_enqueue(actor=request.user, revision=design.latest_revision)
        return redirect("run-detail", pk=run.pk)
