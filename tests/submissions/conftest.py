import pytest


@pytest.fixture
def author(demo_loaded):
    """The account that submits, with the demo benchmark loaded."""
    from django.contrib.auth.models import User

    return User.objects.create_user("author", "author@example.com", "pw")


class TLSWebhook:
    """An HTTPS server on 127.0.0.1 with a certificate for *.example.test from a throw-away CA. The webhook
    sender is pointed at it: names under example.test resolve to 127.0.0.1, which is let through, and the CA
    is trusted. Everything else about the sender (TLS checks, Host header, no redirects) is the real one."""

    HOST = "hooks.example.test"

    def __init__(self, port, received, answers, server_names):
        self.port, self.received, self.answers, self.server_names = port, received, answers, server_names

    def url(self, path="/hook", host=HOST):
        return f"https://{host}:{self.port}{path}"


def _test_ca_and_cert(folder):
    """(CA certificate file, server certificate+key file) for *.example.test, made here."""
    from datetime import datetime, timedelta, timezone

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.now(timezone.utc)

    def build(subject, issuer, public_key, signing_key, *, ca, names=()):
        builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(public_key)
                   .serial_number(x509.random_serial_number()).not_valid_before(now - timedelta(hours=1))
                   .not_valid_after(now + timedelta(days=1))
                   .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
        if ca:
            builder = builder.add_extension(x509.KeyUsage(
                digital_signature=True, content_commitment=False, key_encipherment=False, data_encipherment=False,
                key_agreement=False, key_cert_sign=True, crl_sign=True, encipher_only=False, decipher_only=False),
                critical=True).add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False)
        else:
            builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(n) for n in names]),
                                            critical=False).add_extension(
                x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        return builder.sign(signing_key, hashes.SHA256())

    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "webhook test CA")])
    ca = build(ca_name, ca_name, ca_key.public_key(), ca_key, ca=True)
    cert = build(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, TLSWebhook.HOST)]), ca_name, key.public_key(),
                 ca_key, ca=False, names=[TLSWebhook.HOST])
    ca_file, cert_file = folder / "ca.pem", folder / "server.pem"
    ca_file.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM) + key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return ca_file, cert_file


@pytest.fixture
def tls_webhook(tmp_path, monkeypatch):
    import json
    import ssl
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from leaderboard.evaluations import notices

    ca_file, cert_file = _test_ca_and_cert(tmp_path)
    received, answers, server_names = [], {}, []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received.append({"path": self.path, "headers": dict(self.headers), "json": json.loads(body)})
            status, headers, data = answers.get(self.path, (204, {}, b""))
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_context.load_cert_chain(cert_file)
    server_context.sni_callback = lambda sock, name, context: server_names.append(name)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.socket = server_context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    real_resolve, real_blocked = notices._resolve, notices.webhook_address_blocked
    monkeypatch.setattr(notices, "_resolve", lambda host, port: (
        ["127.0.0.1"] if host.endswith(".example.test") else real_resolve(host, port)))
    monkeypatch.setattr(notices, "webhook_address_blocked", lambda address: (
        str(address) != "127.0.0.1" and real_blocked(address)))
    monkeypatch.setattr(notices, "_tls_context", lambda: ssl.create_default_context(cafile=str(ca_file)))
    yield TLSWebhook(server.server_port, received, answers, server_names)
    server.shutdown()
    server.server_close()
