// Starts Swagger UI on Trove's own OpenAPI document. A file, not an inline script, so the page's
// Content-Security-Policy can allow scripts from this origin only.
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/api/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    // The default validator badge is an image from a public validation service: never load it.
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
  });
});
