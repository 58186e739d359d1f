// A Lambda-style handler on the AWS SDK for JavaScript v3: each request adds its usage units to a
// counter with one UpdateItem ADD (the usage-count pattern); it knows nothing of the app's `version`.
// Run as `node usage_lambda.mjs '<json list of {"counter","units"}>'`: the handler is invoked once
// per event, in order, and prints the new total of each.
import { DynamoDBClient, UpdateItemCommand } from "@aws-sdk/client-dynamodb";

const client = new DynamoDBClient({
  endpoint: process.env.DYNAMODB_ENDPOINT_URL,
  region: process.env.AWS_REGION,
});

export async function handler(event) {
  const answer = await client.send(
    new UpdateItemCommand({
      TableName: process.env.USAGE_TABLE,
      Key: { PK: { S: `C#${event.counter}` }, SK: { S: "TOTAL" } },
      UpdateExpression: "ADD #value :units",
      ExpressionAttributeNames: { "#value": "value" },
      ExpressionAttributeValues: { ":units": { N: String(event.units) } },
      ReturnValues: "UPDATED_NEW",
    }),
  );
  return { statusCode: 200, total: Number(answer.Attributes.value.N) };
}

for (const event of JSON.parse(process.argv[2] || "[]")) {
  const result = await handler(event);
  console.log(result.total);
}
