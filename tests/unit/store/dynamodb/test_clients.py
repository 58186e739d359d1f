"""The store's boto3 clients: what every request carries, built once per client."""

from __future__ import annotations

from botocore.awsrequest import AWSResponse

from counters.store.dynamodb.clients import USER_AGENT, Connection, build_clients


class EmptyBody:
    """A raw HTTP body of `{}`, as DynamoDB answers a call with nothing to return."""

    def stream(self, **kwargs):
        yield b"{}"


def test_both_clients_send_the_fixed_user_agent_and_sign_each_call():
    clients = build_clients(Connection("http://127.0.0.1:9", "us-east-1", "key", "secret"))
    sent = []

    def answer(request, **kwargs):
        sent.append(request.headers)
        return AWSResponse(request.url, 200, {}, EmptyBody())

    for client in (clients.single_shot, clients.retrying):
        client.meta.events.register("before-send", answer)
        client.delete_item(TableName="t", Key={"PK": {"S": "a"}, "SK": {"S": "b"}})
        client.delete_item(TableName="t", Key={"PK": {"S": "a"}, "SK": {"S": "b"}})
    agents = {headers["User-Agent"] for headers in sent}
    assert len(sent) == 4 and len(agents) == 1 and agents.pop().startswith(USER_AGENT.encode())
    assert all(b"Credential=key/" in headers["Authorization"] for headers in sent)
