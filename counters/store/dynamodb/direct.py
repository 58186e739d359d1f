"""The store's writes (UpdateItem, TransactWriteItems) built, signed, sent and read here, not by botocore.

Why: botocore spends about 1,500 Python calls on one UpdateItem (a dozen events, endpoint rules, a
header dict rebuilt at each step, SigV4 through several objects, a walk of the input shape) and 2,700
on a vote's transaction: two thirds of a counted view's work and of a vote's (docs/performance.md).
Here the call's JSON is dumped as is, signed with SigV4 (the signature botocore computes,
tests/unit/store/dynamodb/test_direct.py), sent on a urllib3 pool with the client's own timeouts and
size, and its answer read. What a caller sees is botocore's: ClientError with the same `response`,
the transport errors botocore raises (outage.py maps them unchanged), and for a client that retries,
botocore's own standard retry decisions (conditions, backoff, quota); an increment's client never
resends. The client's `before-send` handlers still see each attempt, and call_metrics.py times each
call. A client this does not cover (proxies, FIPS or dual-stack endpoints, an endpoint with a path, no
credentials, an object wrapping a client) keeps botocore.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import socket
import time
from concurrent.futures import CancelledError
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit
from urllib.request import getproxies, proxy_bypass

import urllib3
from botocore.awsrequest import AWSPreparedRequest, AWSResponse
from botocore.client import BaseClient
from botocore.exceptions import (
    ClientError,
    ConnectionClosedError,
    ConnectTimeoutError,
    EndpointConnectionError,
    HTTPClientError,
    ReadTimeoutError,
    SSLError,
)
from botocore.hooks import first_non_none_response
from botocore.httpsession import get_cert_path
from botocore.retries import quota, standard
from urllib3.exceptions import ConnectTimeoutError as URLLib3ConnectTimeoutError
from urllib3.exceptions import NewConnectionError, ProtocolError
from urllib3.exceptions import ReadTimeoutError as URLLib3ReadTimeoutError
from urllib3.exceptions import SSLError as URLLib3SSLError

from counters.store.dynamodb import call_metrics

SERVICE = "dynamodb"
TARGET_PREFIX = "DynamoDB_20120810."
CONTENT_TYPE = "application/x-amz-json-1.0"
ALGORITHM = "AWS4-HMAC-SHA256"
DEFAULT_PORTS = {"http": 80, "https": 443}
# A binary attribute's value travels base64-encoded; only then does an answer need decoding.
BINARY_MARK = b'"B'


def direct_calls(client: Any) -> DirectCalls | None:
    """The direct sender for `client`'s calls, or None where botocore must keep them (module note)."""
    if not isinstance(client, BaseClient):
        return None  # a wrapper around a client keeps its own methods
    config = client.meta.config
    credentials = client._get_credentials()
    endpoint = client.meta.endpoint_url or ""
    if (
        not endpoint
        or credentials is None
        or config.proxies
        or config.use_fips_endpoint
        or config.use_dualstack_endpoint
        or urlsplit(endpoint).path not in ("", "/")
        or _proxied(endpoint)
    ):
        return None
    return DirectCalls(client, credentials)


def _proxied(endpoint: str) -> bool:
    """Whether the environment sends requests to `endpoint` through a proxy (as botocore would find)."""
    parts = urlsplit(endpoint)
    return parts.scheme in getproxies() and not proxy_bypass(parts.hostname or "")


class DirectCalls:
    """Send a client's calls (JSON in, JSON out) once each, signed as botocore signs them."""

    def __init__(self, client: Any, credentials: Any) -> None:
        self.events = client.meta.events
        self.region = client.meta.region_name
        self.credentials = credentials
        self.url = client.meta.endpoint_url.rstrip("/") + "/"
        parts = urlsplit(self.url)
        port = parts.port or DEFAULT_PORTS[parts.scheme]
        # The Host botocore signs: an IPv6 address in brackets, the port only when not the scheme's own.
        host = f"[{parts.hostname}]" if ":" in (parts.hostname or "") else parts.hostname
        self.host = host if port == DEFAULT_PORTS[parts.scheme] else f"{host}:{port}"
        config = client.meta.config
        pool = {
            "maxsize": config.max_pool_connections,
            "block": False,
            "timeout": urllib3.Timeout(connect=config.connect_timeout, read=config.read_timeout),
            "retries": False,
        }
        if parts.scheme == "https":
            self.pool = urllib3.HTTPSConnectionPool(
                parts.hostname, port, cert_reqs="CERT_REQUIRED", ca_certs=get_cert_path(True), **pool
            )
        else:
            self.pool = urllib3.HTTPConnectionPool(parts.hostname, port, **pool)
        self.user_agent = config.user_agent or "botocore"
        self.model = client.meta.service_model
        attempts = (config.retries or {}).get("total_max_attempts", 1)
        self.retries = Retries.standard(attempts) if attempts > 1 else None
        # The day's signing key, kept for the day (and the secret it was derived from).
        self._key: tuple[str, str, bytes] = ("", "", b"")

    def call(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        """Send one call and return its parsed answer; ClientError for DynamoDB's refusal, as botocore's.

        A client that retries resends as botocore's standard mode would (its conditions, backoff and
        quota, retry_handler below); a transaction's ClientRequestToken makes that safe.
        """
        began = time.perf_counter()
        context: dict[str, Any] = {}
        attempt = 1
        while True:
            failure: Exception | None = None
            try:
                request = self.request(operation, params, now=time.gmtime())
                status, headers, content = self._answer(operation, request)
            except Exception as exc:  # what botocore hands its retry handler too
                failure, status, headers, content = exc, 0, {}, b""
            if failure is None and status < 300:
                if self.retries is not None:
                    self.retries.quota.release_retry_quota(context, Answered(status))
                call_metrics.record(operation, began, None)
                return _loads(content)
            response = None if failure is not None else error_response(status, headers, content)
            delay = self._retry_delay(operation, attempt, (status, headers, response), failure, context)
            if delay is None:
                break
            time.sleep(delay)
            attempt += 1
        if failure is not None:
            call_metrics.record(operation, began, type(failure).__name__)
            raise failure
        if call_metrics.condition_refused(response):
            call_metrics.record(operation, began, None, refused=True)
        else:
            call_metrics.record(operation, began, response["Error"]["Code"] or str(status))
        raise ClientError(response, operation)

    def _retry_delay(
        self, operation: str, attempt: int, answer: tuple, failure: Exception | None, context: dict
    ) -> float | None:
        """Seconds to wait before sending again, or None to give up (botocore's decision)."""
        if self.retries is None:
            return None
        status, headers, response = answer
        delay = self.retries.handler.needs_retry(
            response=None
            if failure is not None
            else (AWSResponse(self.url, status, headers, None), response),
            attempts=attempt,
            caught_exception=failure,
            operation=self.model.operation_model(operation),
            request_dict={"context": context},
        )
        return None if delay is None or delay is False else delay

    def request(self, operation: str, params: dict[str, Any], *, now: time.struct_time) -> AWSPreparedRequest:
        """The signed request of one call at `now` (UTC)."""
        body = json.dumps(params, separators=(",", ":"), default=_binary).encode()
        headers = {
            "Content-Type": CONTENT_TYPE,
            "Host": self.host,
            "X-Amz-Date": time.strftime("%Y%m%dT%H%M%SZ", now),
            "X-Amz-Target": TARGET_PREFIX + operation,
        }
        frozen = self.credentials.get_frozen_credentials()
        if frozen.token:
            headers["X-Amz-Security-Token"] = frozen.token
        headers["Authorization"] = self._authorization(headers, body, frozen)
        headers["User-Agent"] = self.user_agent
        return AWSPreparedRequest("POST", self.url, headers, body, stream_output=False)

    def _authorization(self, headers: dict[str, str], body: bytes, frozen: Any) -> str:
        """SigV4's Authorization header over every header set so far (all of them signed)."""
        stamp = headers["X-Amz-Date"]
        day = stamp[:8]
        scope = f"{day}/{self.region}/{SERVICE}/aws4_request"
        names = sorted(headers, key=str.lower)
        signed = ";".join(name.lower() for name in names)
        canonical = "\n".join(
            [
                "POST",
                "/",
                "",
                *(f"{name.lower()}:{' '.join(headers[name].split())}" for name in names),
                "",
                signed,
                hashlib.sha256(body).hexdigest(),
            ]
        )
        to_sign = f"{ALGORITHM}\n{stamp}\n{scope}\n{hashlib.sha256(canonical.encode()).hexdigest()}"
        signature = hmac.new(self._signing_key(day, frozen.secret_key), to_sign.encode(), hashlib.sha256)
        return (
            f"{ALGORITHM} Credential={frozen.access_key}/{scope}, SignedHeaders={signed}, "
            f"Signature={signature.hexdigest()}"
        )

    def _signing_key(self, day: str, secret: str) -> bytes:
        """SigV4's key for `day`, derived once a day (per secret)."""
        if self._key[:2] != (day, secret):
            key = ("AWS4" + secret).encode()
            for part in (day, self.region, SERVICE, "aws4_request"):
                key = hmac.new(key, part.encode(), hashlib.sha256).digest()
            self._key = (day, secret, key)
        return self._key[2]

    def _answer(self, operation: str, request: AWSPreparedRequest) -> tuple[int, Any, bytes]:
        """Status, headers and body: from a `before-send` handler if one answers, else from DynamoDB."""
        # Every handler sees the request, as botocore's own send emits it; the first answer wins.
        given = first_non_none_response(
            self.events.emit(f"before-send.{SERVICE}.{operation}", request=request)
        )
        if given is not None:
            return given.status_code, given.headers, given.content
        return self._send(request)

    def _send(self, request: AWSPreparedRequest) -> tuple[int, Any, bytes]:
        """Send once on the pool; urllib3's failures raised as botocore's (as its URLLib3Session does)."""
        url = request.url
        try:
            answer = self.pool.urlopen(
                "POST",
                "/",
                body=request.body,
                headers=request.headers,
                retries=False,
                assert_same_host=False,
                preload_content=False,
                decode_content=False,
            )
            return answer.status, answer.headers, answer.read()
        except URLLib3SSLError as exc:
            raise SSLError(endpoint_url=url, error=exc) from exc
        except (NewConnectionError, socket.gaierror) as exc:
            raise EndpointConnectionError(endpoint_url=url, error=exc) from exc
        except URLLib3ConnectTimeoutError as exc:
            raise ConnectTimeoutError(endpoint_url=url, error=exc) from exc
        except URLLib3ReadTimeoutError as exc:
            raise ReadTimeoutError(endpoint_url=url, error=exc) from exc
        except ProtocolError as exc:
            raise ConnectionClosedError(error=exc, request=request, endpoint_url=url) from exc
        except CancelledError:
            raise
        except Exception as exc:
            raise HTTPClientError(error=exc) from exc

    def close(self) -> None:
        """Close the pool's connections."""
        self.pool.close()


@dataclass(frozen=True)
class Answered:
    """The status of an answer, as the retry quota reads it."""

    status_code: int


@dataclass(frozen=True)
class Retries:
    """botocore's standard retry mode, for one sender: its handler (conditions, backoff) and its quota."""

    handler: standard.RetryHandler
    quota: standard.RetryQuotaChecker

    @classmethod
    def standard(cls, attempts: int) -> Retries:
        """What botocore's `register_retry_handler` builds for a client, without registering it."""
        adapter = standard.RetryEventAdapter()
        throttling = standard.ThrottlingErrorDetector(adapter)
        retry_quota = standard.RetryQuotaChecker(quota.RetryQuota(), throttling)
        policy = standard.RetryPolicy(
            retry_checker=standard.StandardRetryConditions(max_attempts=attempts),
            retry_backoff=standard.ExponentialBackoff(service_name=SERVICE, throttling_detector=throttling),
        )
        handler = standard.RetryHandler(
            retry_policy=policy, retry_event_adapter=adapter, retry_quota=retry_quota, service_name=SERVICE
        )
        return cls(handler=handler, quota=retry_quota)


def error_response(status: int, headers: Any, content: bytes) -> dict[str, Any]:
    """A refusal as botocore parses it: Error (Code, Message), the error's own members, ResponseMetadata."""
    try:
        body = _loads(content) if content else {}
    except ValueError:
        body = {}
    if not isinstance(body, dict):
        body = {}
    code = str(body.pop("__type", "")).rsplit("#", 1)[-1] or str(status)
    message = body.pop("message", None) or body.pop("Message", "")
    response = {key: value for key, value in body.items()}
    response["Error"] = {"Code": code, "Message": message}
    response["ResponseMetadata"] = {
        "RequestId": headers.get("x-amzn-RequestId", ""),
        "HTTPStatusCode": status,
    }
    return response


def _binary(value: Any) -> str:
    """A binary attribute's value as DynamoDB's JSON carries it (base64)."""
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode()
    raise TypeError(f"Cannot send {type(value).__name__} to DynamoDB.")


def _loads(content: bytes) -> Any:
    """An answer's JSON, its binary attribute values decoded to bytes (as botocore hands them out)."""
    parsed = json.loads(content)
    return _decoded(parsed) if BINARY_MARK in content else parsed


def _decoded(value: Any) -> Any:
    """`value` with every attribute value's B and BS decoded from base64."""
    if isinstance(value, list):
        return [_decoded(item) for item in value]
    if not isinstance(value, dict):
        return value
    decoded = {}
    for key, item in value.items():
        if key == "B" and isinstance(item, str):
            decoded[key] = base64.b64decode(item)
        elif key == "BS" and isinstance(item, list):
            decoded[key] = [base64.b64decode(each) for each in item]
        else:
            decoded[key] = _decoded(item)
    return decoded
