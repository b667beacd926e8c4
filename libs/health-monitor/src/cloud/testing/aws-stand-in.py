"""A local stand-in for AWS Secrets Manager and ACM (JSON protocol) that verifies every request's
SigV4 signature with botocore's own signer (an implementation independent of Certlane's).
Usage: aws-stand-in.py <access key id> <secret access key> <region> <data.json>; prints its port.
data.json: {"secrets": [{"ARN", "Name", "SecretString"}], "certificates": [{"CertificateArn", "Certificate", "CertificateChain"}]}
"""
import hmac
import json
import re
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

ACCESS_KEY, SECRET_KEY, REGION, DATA = sys.argv[1], sys.argv[2], sys.argv[3], json.load(open(sys.argv[4]))
AUTH = re.compile(r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$")


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/x-amz-json-1.1")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def verified(self, body):
        match = AUTH.match(self.headers.get("authorization", ""))
        if not match:
            return None
        key_id, day, region, service, signed, signature = match.groups()
        if key_id != ACCESS_KEY or region != REGION:
            return None
        amz_date = self.headers.get("x-amz-date", "")
        if not amz_date.startswith(day):
            return None
        names = signed.split(";")
        headers = {name: self.headers.get(name, "") for name in names if name != "host"}
        request = AWSRequest(method="POST", url="http://%s%s" % (self.headers.get("host"), self.path), data=body, headers=headers)
        request.context["timestamp"] = amz_date
        auth = SigV4Auth(Credentials(ACCESS_KEY, SECRET_KEY), service, REGION)
        canonical = auth.canonical_request(request)
        expected = auth.signature(auth.string_to_sign(request, canonical), request)
        return service if hmac.compare_digest(expected, signature) else None

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        service = self.verified(body)
        if service is None:
            return self.answer(403, {"__type": "InvalidSignatureException", "message": "signature mismatch"})
        target = self.headers.get("x-amz-target", "")
        payload = json.loads(body or b"{}")
        expected_service = {"secretsmanager": "secretsmanager.", "acm": "CertificateManager."}[service]
        if not target.startswith(expected_service):
            return self.answer(400, {"__type": "UnknownOperationException"})
        if target == "secretsmanager.ListSecrets":
            start = int(payload.get("NextToken") or 0)
            page = DATA["secrets"][start:start + 1]  # one a page: pagination is exercised
            more = start + 1 < len(DATA["secrets"])
            return self.answer(200, {"SecretList": [{"ARN": s["ARN"], "Name": s["Name"]} for s in page], **({"NextToken": str(start + 1)} if more else {})})
        if target == "secretsmanager.GetSecretValue":
            secret = next((s for s in DATA["secrets"] if s["ARN"] == payload.get("SecretId")), None)
            if secret is None:
                return self.answer(400, {"__type": "ResourceNotFoundException"})
            return self.answer(200, {"ARN": secret["ARN"], "Name": secret["Name"], "SecretString": secret["SecretString"]})
        if target == "CertificateManager.ListCertificates":
            return self.answer(200, {"CertificateSummaryList": [{"CertificateArn": c["CertificateArn"]} for c in DATA["certificates"]]})
        if target == "CertificateManager.GetCertificate":
            cert = next((c for c in DATA["certificates"] if c["CertificateArn"] == payload.get("CertificateArn")), None)
            if cert is None:
                return self.answer(400, {"__type": "ResourceNotFoundException"})
            return self.answer(200, {"Certificate": cert["Certificate"], "CertificateChain": cert.get("CertificateChain", "")})
        return self.answer(400, {"__type": "UnknownOperationException"})


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
