// The API documentation page: Swagger UI over this service's OpenAPI document. A file of
// its own, not an inline script, so the Content-Security-Policy can refuse inline scripts.
"use strict";

SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  layout: "BaseLayout",
  deepLinking: true,
  showExtensions: true,
  showCommonExtensions: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
});
