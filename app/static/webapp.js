// The site as an app: register the service worker (its address in this script's data-worker), which
// keeps the static files and shows the offline page when a page cannot be fetched; on that offline
// page, load the page again as soon as it can be reached.
(function () {
  "use strict";
  var script = document.currentScript;
  var worker = script && script.dataset.worker;
  if (worker && "serviceWorker" in navigator && window.isSecureContext) {
    // After the page has loaded, so that the worker's first fetches never hold the page up.
    window.addEventListener("load", function () {
      navigator.serviceWorker.register(worker).catch(function () {
        // No worker (a private window that refuses it, the network gone): the site works as before.
      });
    });
  }
  if (document.querySelector("main[data-offline]")) {
    // The browser says it is online again: load the page once its address answers (the browser's
    // "online" only means a network is there, not that the site can be reached).
    window.addEventListener("online", function () {
      fetch(window.location.href, { method: "HEAD", cache: "no-store" }).then(function () {
        window.location.reload();
      }, function () { /* still out of reach: the next "online" tries again */ });
    });
  }
})();
