// Draw every Plotly figure on the page (no inline JS for the CSP), on first load and after each
// htmx swap. A figure comes either inline (json_script, `data-figure` names the script) or from
// a JSON URL holding several figures by id (`data-figures-url` + `data-figure-id`): the results
// page's figures, fetched once per URL; the URL names its content, so the browser keeps it.
(function () {
  function plot(el, figure) {
    if (!figure || !window.Plotly || el.dataset.drawn) return;
    window.Plotly.newPlot(el, figure.data, figure.layout, {
      responsive: true, displaylogo: false,
    });
    el.dataset.drawn = "1";
  }
  function drawInline(root) {
    root.querySelectorAll("[data-figure]").forEach(function (el) {
      var source = document.getElementById(el.dataset.figure);
      if (source) plot(el, JSON.parse(source.textContent));
    });
  }
  function drawFetched(root) {
    var byUrl = {};
    root.querySelectorAll("[data-figures-url]").forEach(function (el) {
      if (el.dataset.drawn) return;
      (byUrl[el.dataset.figuresUrl] = byUrl[el.dataset.figuresUrl] || []).push(el);
    });
    Object.keys(byUrl).forEach(function (url) {
      fetch(url, { credentials: "same-origin" })
        .then(function (response) {
          if (!response.ok) throw new Error("figures: HTTP " + response.status);
          return response.json();
        })
        .then(function (figures) {
          byUrl[url].forEach(function (el) { plot(el, figures[el.dataset.figureId]); });
        })
        .catch(function (error) {
          byUrl[url].forEach(function (el) {
            el.textContent = "Chart not available (" + error.message + "); reload the page.";
          });
        });
    });
  }
  function draw(root) {
    drawInline(root);
    drawFetched(root);
  }
  document.addEventListener("DOMContentLoaded", function () { draw(document); });
  document.addEventListener("htmx:afterSettle", function (e) { draw(e.target.parentNode || document); });
})();
