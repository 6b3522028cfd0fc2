"""A minimal OpenID Connect provider on 127.0.0.1, for the single sign-on
test: the stand-in for a real identity provider (Google, Keycloak, …),
which cannot run here.

It speaks the standard authorisation-code flow that Streamlit's ``st.login``
(Authlib) uses: discovery document, ``/authorize`` (signs the configured
user in at once and redirects back with a code), ``/token`` (exchanges the
code, checking the client secret and the redirect URI, for an RS256-signed
ID token carrying the user's e-mail and the nonce) and ``/jwks``.  Every
request is recorded in :attr:`OIDCProvider.requests`, so a test can check
that the flow really went through the provider."""
from __future__ import annotations

import json
import secrets
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class OIDCProvider:
    """``with OIDCProvider(email=…) as idp:`` serves on a free port;
    ``idp.issuer`` is the base URL, ``idp.metadata_url`` the discovery
    document for ``server_metadata_url``."""

    def __init__(self, *, email: str, client_id: str = "workbench",
                 client_secret: str = "workbench-secret") -> None:
        from joserfc.jwk import RSAKey

        self.email = email
        self.client_id = client_id
        self.client_secret = client_secret
        self.key = RSAKey.generate_key(2048, parameters={"kid": "test-key", "use": "sig", "alg": "RS256"})
        self.requests: list[str] = []
        self.tokens_issued = 0
        self._codes: dict[str, dict[str, str]] = {}
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.issuer = f"http://127.0.0.1:{self._server.server_address[1]}"
        self.metadata_url = f"{self.issuer}/.well-known/openid-configuration"

    def __enter__(self) -> "OIDCProvider":
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # ------------------------------------------------------------ protocol

    def _metadata(self) -> dict[str, Any]:
        return {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "jwks_uri": f"{self.issuer}/jwks",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "email", "profile"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        }

    def _authorize(self, query: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        if query.get("client_id") != self.client_id or query.get("response_type") != "code":
            return 400, {}, b"bad authorisation request"
        code = secrets.token_urlsafe(16)
        self._codes[code] = {"nonce": query.get("nonce", ""), "redirect_uri": query["redirect_uri"]}
        target = query["redirect_uri"] + "?" + urllib.parse.urlencode({"code": code, "state": query.get("state", "")})
        return 302, {"Location": target}, b""

    def _token(self, form: dict[str, str], auth_header: str | None) -> tuple[int, dict[str, str], bytes]:
        import base64

        from joserfc import jwt

        client_id, client_secret = form.get("client_id"), form.get("client_secret")
        if auth_header and auth_header.startswith("Basic "):
            user, _, pw = base64.b64decode(auth_header[6:]).decode().partition(":")
            client_id, client_secret = urllib.parse.unquote(user), urllib.parse.unquote(pw)
        grant = self._codes.pop(form.get("code", ""), None)
        if (client_id, client_secret) != (self.client_id, self.client_secret) or grant is None \
                or form.get("redirect_uri") != grant["redirect_uri"]:
            return 400, {"Content-Type": "application/json"}, b'{"error": "invalid_grant"}'
        now = int(time.time())
        claims = {"iss": self.issuer, "sub": "user-1", "aud": self.client_id, "iat": now, "exp": now + 600,
                  "email": self.email, "email_verified": True, "name": self.email.split("@")[0]}
        if grant["nonce"]:
            claims["nonce"] = grant["nonce"]
        id_token = jwt.encode({"alg": "RS256", "kid": "test-key"}, claims, self.key)
        self.tokens_issued += 1
        body = {"access_token": secrets.token_urlsafe(16), "token_type": "Bearer", "expires_in": 600,
                "id_token": id_token, "scope": "openid email profile"}
        return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, status: int, headers: dict[str, str], body: bytes) -> None:
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                url = urllib.parse.urlsplit(self.path)
                provider.requests.append(url.path)
                query = dict(urllib.parse.parse_qsl(url.query))
                if url.path == "/.well-known/openid-configuration":
                    self._send(200, {"Content-Type": "application/json"}, json.dumps(provider._metadata()).encode())
                elif url.path == "/jwks":
                    keys = {"keys": [provider.key.as_dict(private=False)]}
                    self._send(200, {"Content-Type": "application/json"}, json.dumps(keys).encode())
                elif url.path == "/authorize":
                    self._send(*provider._authorize(query))
                else:
                    self._send(404, {}, b"not found")

            def do_POST(self) -> None:  # noqa: N802
                url = urllib.parse.urlsplit(self.path)
                provider.requests.append(url.path)
                length = int(self.headers.get("Content-Length") or 0)
                form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
                if url.path == "/token":
                    self._send(*provider._token(form, self.headers.get("Authorization")))
                else:
                    self._send(404, {}, b"not found")

        return Handler
