"""The HTTP surface: routes (one blueprint of thin views over api.game.service), request and answer
schemas, problem responses and the OpenAPI document; the PWA's files and the probes."""
