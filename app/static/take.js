// The seat link's page: the secret comes after the "#" of the link, which browsers never send
// to a server. Put it in the form, and take it out of the address bar and the history.
(function () {
  "use strict";
  var field = document.querySelector("form.take-form input[name=secret]");
  var secret = window.location.hash.slice(1);
  if (!field || !secret) return;
  field.value = decodeURIComponent(secret);
  field.closest("label").hidden = true;
  window.history.replaceState(null, "", window.location.pathname + window.location.search);
})();
