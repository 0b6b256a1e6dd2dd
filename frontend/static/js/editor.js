// Editor tabs: one spec section visible at a time; every field stays in the form, so saving
// and live validation always see the whole design.
(function () {
  function show(name) {
    var sections = document.querySelectorAll(".editor-section");
    if (!sections.length) return;
    var found = false;
    sections.forEach(function (s) {
      var match = s.id === "section-" + name;
      s.hidden = !match;
      found = found || match;
    });
    if (!found) sections[0].hidden = false;
    document.querySelectorAll("#section-nav a").forEach(function (a) {
      a.classList.toggle("active", a.getAttribute("href") === "#section-" + name);
    });
  }
  function current() {
    return (location.hash || "#section-workload").replace("#section-", "");
  }
  document.addEventListener("click", function (e) {
    var link = e.target.closest("#section-nav a, .quick-look a");
    if (!link) return;
    var target = link.getAttribute("href");
    var field = target && document.querySelector(target);
    var section = field && field.closest(".editor-section");
    if (!section) return;
    e.preventDefault();
    history.replaceState(null, "", "#" + section.id);
    show(section.id.replace("section-", ""));
    if (field !== section) field.focus();
  });
  document.addEventListener("DOMContentLoaded", function () { show(current()); });
  document.addEventListener("htmx:afterSettle", function () { show(current()); });
})();
