// Review pages (no inline JS for the CSP): the 💬 buttons point the comment form at an item,
// a form that posted successfully is cleared, and a 400 answer (field errors) is shown in the
// form's error box instead of being dropped (htmx does not swap 4xx answers by default).
(function () {
  function pointCommentAt(button) {
    var form = document.getElementById("comment-form");
    if (!form) return;
    form.querySelector("[name=anchor_kind]").value = button.dataset.anchorKind;
    form.querySelector("[name=anchor_key]").value = button.dataset.anchorKey;
    var design = form.querySelector("[name=design]");
    if (design) design.value = button.dataset.design;
    document.getElementById("anchor-chip").textContent = button.dataset.anchorLabel;
    form.querySelector("[name=body]").focus();
  }
  document.addEventListener("click", function (e) {
    var button = e.target.closest(".anchor-btn");
    if (button) pointCommentAt(button);
  });
  document.addEventListener("htmx:beforeSwap", function (e) {
    var source = e.detail.requestConfig && e.detail.requestConfig.elt;
    var form = source && source.closest("[data-swap-errors]");
    if (e.detail.xhr.status === 400 && form) {
      e.detail.shouldSwap = true;
      e.detail.isError = false;
      e.detail.target = document.querySelector(form.dataset.swapErrors);
      e.detail.swapOverride = "innerHTML";
    }
  });
  // The live panel follows new revisions; the numbers on the left are those of the page's
  // load: say so when a design under review got a newer revision meanwhile.
  function flagNewerRevisions() {
    document.querySelectorAll(".design-state[data-latest-number]").forEach(function (state) {
      var panel = document.querySelector(".design-panel[data-design='" + state.dataset.design + "']");
      if (!panel) return;
      var banner = panel.querySelector(".newer-revision");
      banner.hidden = state.dataset.latestNumber === panel.dataset.shownNumber;
    });
  }
  document.addEventListener("htmx:afterSettle", flagNewerRevisions);
  document.addEventListener("htmx:afterRequest", function (e) {
    var form = e.detail.elt;
    if (!e.detail.successful || !form || form.tagName !== "FORM") return;
    if (form.id === "comment-form" || form.id === "verdict-form" || form.classList.contains("reply-form")) {
      var errors = form.dataset.swapErrors && document.querySelector(form.dataset.swapErrors);
      if (errors) errors.innerHTML = "";
      var text = form.querySelector("[name=body], [name=note]");
      if (text) text.value = "";
    }
  });
})();
