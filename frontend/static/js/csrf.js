// htmx requests carry Django's CSRF token from the cookie-less form token on the page.
document.addEventListener("htmx:configRequest", function (event) {
  var token = document.querySelector("input[name=csrfmiddlewaretoken]");
  if (token) event.detail.headers["X-CSRFToken"] = token.value;
});
