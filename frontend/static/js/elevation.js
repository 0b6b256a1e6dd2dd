// Rack elevations: the row selector shows the chosen floor row's racks (one rack per column).
document.addEventListener("change", function (event) {
  var select = event.target.closest(".elevation-row-select");
  if (!select) return;
  var root = document.getElementById(select.dataset.elevation);
  root.querySelectorAll(".elevation-row").forEach(function (row) {
    row.hidden = row.dataset.row !== select.value;
  });
});
