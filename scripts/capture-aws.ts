// Captures AWS-shaped error responses as fixtures of the response corpus, from two npm emulators
// on loopback: dynalite (DynamoDB's JSON protocol) and s3rver (S3's REST API with XML errors). Both
// are started on 127.0.0.1 (s3rver with a temporary data directory), sent the requests of CASES
// below with the platform fetch (raw HTTP, no AWS SDK), and each answer is written to
// test/fixtures/responses/<case>.json with the case's hand-written expectations. Only the headers
// that vary from run to run are rewritten: Date becomes a fixed date and dynalite's random
// x-amzn-RequestId a fixed id of the same shape, so a second run writes the same bytes. It prints
// the README table row of each fixture it wrote, for test/fixtures/responses/README.md.
//
//   npx tsx scripts/capture-aws.ts
//
// test/core/aws-live.test.ts starts the same emulators on every run and checks that they still
// answer as captured.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../codegen/paths.js';

/** Where the fixtures go: the response corpus. */
export const AWS_FIXTURES = join(ROOT, 'test/fixtures/responses');

/** The Date every fixture carries in place of the live one. */
export const FIXED_DATE = 'Mon, 30 Nov 2026 00:00:00 GMT';

const DYNAMODB_DOCS = 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html';
const S3_DOCS = 'https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html';

// ---------------------------------------------------------------------------------------------
// The emulators (neither ships type declarations: the little used of them is declared here)

interface DynaliteOptions {
  /** How long a new table stays CREATING; 0 makes it ACTIVE on the next tick. */
  readonly createTableMs?: number;
}
type Dynalite = (options?: DynaliteOptions) => Server;

interface S3rverOptions {
  readonly port: number;
  readonly address: string;
  readonly silent: boolean;
  readonly directory: string;
}
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  readonly httpServer?: Server;
}
type S3rverClass = new (options: S3rverOptions) => S3rverInstance;

const require = createRequire(import.meta.url);
const dynalite = require('dynalite') as Dynalite;
const S3rver = require('s3rver') as S3rverClass;

/** The version of an installed package, read from its package.json. */
export function packageVersion(name: string): string {
  return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

// ---------------------------------------------------------------------------------------------
// Requests

/** The table and bucket the setup creates, and the key it puts. */
const TABLE = 'fixture-table';
const BUCKET = 'fixture-bucket';

/**
 * A SigV4-shaped Authorization header: dynalite checks that one is there and names Credential,
 * SignedHeaders and Signature, with an X-Amz-Date beside it; it does not verify the signature.
 */
const AUTHORIZATION =
  'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261130/us-east-1/dynamodb/aws4_request, ' +
  `SignedHeaders=host;x-amz-date;x-amz-target, Signature=${'0'.repeat(64)}`;

/** Sends a DynamoDB JSON-protocol request: POST / with the operation in x-amz-target, signed unless `signed` is false. */
function dynamodb(url: string, operation: string, input: unknown, signed = true): Promise<Response> {
  const headers: Record<string, string> = {
    'content-type': 'application/x-amz-json-1.0',
    'x-amz-target': `DynamoDB_20120810.${operation}`,
    'x-amz-date': '20261130T000000Z',
  };
  if (signed) headers.authorization = AUTHORIZATION;
  return fetch(`${url}/`, { method: 'POST', headers, body: JSON.stringify(input) });
}

/** The envelope members a fixture's response must give (the corpus's `expect`). */
export interface AwsExpect {
  readonly code: string;
  readonly retry: string;
  readonly field: string | null;
  readonly retry_after: number | null;
  readonly message?: string;
}

/** The emulators' origins, http://127.0.0.1:port. */
export interface AwsUrls {
  readonly dynamodb: string;
  readonly s3: string;
}

/** One error response to capture. */
export interface AwsCase {
  /** The fixture's file name in test/fixtures/responses/. */
  readonly file: string;
  readonly service: 'dynamodb' | 's3';
  readonly name: string;
  /** What the README's table says the fixture shows. */
  readonly shows: string;
  /** The request as the fixture's source tells it. */
  readonly request: string;
  readonly expect: AwsExpect;
  readonly send: (urls: AwsUrls) => Promise<Response>;
}

const signedNote = 'a SigV4-shaped authorization header (not verified by dynalite)';

/** Every response captured, in the order they are sent (after the setup of captureAws). */
export const CASES: readonly AwsCase[] = [
  {
    file: 'aws-dynamodb-400-resource-not-found.json',
    service: 'dynamodb',
    name: 'DynamoDB 400 ResourceNotFoundException: GetItem on a table that does not exist',
    shows: 'GetItem on a missing table, __type ...#ResourceNotFoundException on a 400: not_found, no retry',
    request: `POST / with x-amz-target DynamoDB_20120810.GetItem, ${signedNote}, and {"TableName":"missing-table","Key":{"id":{"S":"1"}}}`,
    expect: { code: 'not_found', retry: 'no', field: null, retry_after: null, message: 'Requested resource not found' },
    send: (urls) => dynamodb(urls.dynamodb, 'GetItem', { TableName: 'missing-table', Key: { id: { S: '1' } } }),
  },
  {
    file: 'aws-dynamodb-400-conditional-check-failed.json',
    service: 'dynamodb',
    name: 'DynamoDB 400 ConditionalCheckFailedException: PutItem with attribute_not_exists(id) on an existing item',
    shows: 'PutItem whose ConditionExpression fails on an existing item, ...#ConditionalCheckFailedException on a 400: conflict, refetch',
    request:
      `POST / with x-amz-target DynamoDB_20120810.PutItem, ${signedNote}, and ` +
      `{"TableName":"${TABLE}","Item":{"id":{"S":"1"}},"ConditionExpression":"attribute_not_exists(id)"}, ` +
      `after CreateTable ${TABLE} (hash key id, S) and PutItem of {"id":{"S":"1"}}`,
    expect: { code: 'conflict', retry: 'refetch', field: null, retry_after: null, message: 'The conditional request failed' },
    send: (urls) =>
      dynamodb(urls.dynamodb, 'PutItem', { TableName: TABLE, Item: { id: { S: '1' } }, ConditionExpression: 'attribute_not_exists(id)' }),
  },
  {
    file: 'aws-dynamodb-400-validation-key-schema.json',
    service: 'dynamodb',
    name: 'DynamoDB 400 ValidationException: GetItem with a key of the wrong type',
    shows: 'GetItem with a number key on a string hash key, ...#ValidationException on a 400: invalid_input, no field',
    request: `POST / with x-amz-target DynamoDB_20120810.GetItem, ${signedNote}, and {"TableName":"${TABLE}","Key":{"id":{"N":"1"}}} (the table's hash key id is a string)`,
    expect: { code: 'invalid_input', retry: 'fix_input', field: null, retry_after: null, message: 'The provided key element does not match the schema' },
    send: (urls) => dynamodb(urls.dynamodb, 'GetItem', { TableName: TABLE, Key: { id: { N: '1' } } }),
  },
  {
    file: 'aws-dynamodb-400-validation-table-name.json',
    service: 'dynamodb',
    name: 'DynamoDB 400 ValidationException: GetItem with a table name too short',
    shows: "GetItem with TableName \"ab\", a constraint message naming 'tableName': invalid_input, field tableName from the sentence",
    request: `POST / with x-amz-target DynamoDB_20120810.GetItem, ${signedNote}, and {"TableName":"ab","Key":{"id":{"S":"1"}}}`,
    expect: {
      code: 'invalid_input',
      retry: 'fix_input',
      field: 'tableName',
      retry_after: null,
      message: "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy constraint: Member must have length greater than or equal to 3",
    },
    send: (urls) => dynamodb(urls.dynamodb, 'GetItem', { TableName: 'ab', Key: { id: { S: '1' } } }),
  },
  {
    file: 'aws-dynamodb-400-missing-authentication-token.json',
    service: 'dynamodb',
    name: 'DynamoDB 400 MissingAuthenticationTokenException: a request with no authorization header',
    shows: 'No Authorization header, ...#MissingAuthenticationTokenException on a 400 (not a 401/403): auth_required, get_grant',
    request: `POST / with x-amz-target DynamoDB_20120810.GetItem and {"TableName":"${TABLE}","Key":{"id":{"S":"1"}}}, without an authorization header`,
    expect: { code: 'auth_required', retry: 'get_grant', field: null, retry_after: null, message: 'Request is missing Authentication Token' },
    send: (urls) => dynamodb(urls.dynamodb, 'GetItem', { TableName: TABLE, Key: { id: { S: '1' } } }, false),
  },
  {
    file: 'aws-s3-404-no-such-bucket.json',
    service: 's3',
    name: 'S3 404 NoSuchBucket: GET of a key in a bucket that does not exist',
    shows: 'XML <Error><Code>NoSuchBucket</Code> on a 404: not_found, no retry',
    request: 'GET /missing-bucket/some-key, path-style, unsigned',
    expect: { code: 'not_found', retry: 'no', field: null, retry_after: null, message: 'The specified bucket does not exist' },
    send: (urls) => fetch(`${urls.s3}/missing-bucket/some-key`),
  },
  {
    file: 'aws-s3-404-no-such-key.json',
    service: 's3',
    name: 'S3 404 NoSuchKey: GET of a missing key in an existing bucket',
    shows: 'XML <Error><Code>NoSuchKey</Code> naming the key: not_found, no retry',
    request: `GET /${BUCKET}/missing-key, path-style, unsigned, after PUT /${BUCKET}`,
    expect: { code: 'not_found', retry: 'no', field: null, retry_after: null, message: 'The specified key does not exist.' },
    send: (urls) => fetch(`${urls.s3}/${BUCKET}/missing-key`),
  },
  {
    file: 'aws-s3-400-invalid-bucket-name.json',
    service: 's3',
    name: 'S3 400 InvalidBucketName: creating a bucket whose name has capitals and an underscore',
    shows: 'XML <Error><Code>InvalidBucketName</Code> on a 400: invalid_input, no field',
    request: 'PUT /Invalid_Bucket, path-style, unsigned',
    expect: {
      code: 'invalid_input',
      retry: 'fix_input',
      field: null,
      retry_after: null,
      message: 'Bucket names can contain lowercase letters, numbers, and hyphens. Each label must start and end with a lowercase letter or a number.',
    },
    send: (urls) => fetch(`${urls.s3}/Invalid_Bucket`, { method: 'PUT' }),
  },
  {
    file: 'aws-s3-400-invalid-argument-max-keys.json',
    service: 's3',
    name: 'S3 400 InvalidArgument: listing a bucket with max-keys that is not a number',
    shows: 'XML <Error><Code>InvalidArgument</Code> with ArgumentName max-keys: invalid_input, field max-keys',
    request: `GET /${BUCKET}?max-keys=many, path-style, unsigned, after PUT /${BUCKET}`,
    expect: { code: 'invalid_input', retry: 'fix_input', field: 'max-keys', retry_after: null, message: 'Provided max-keys not an integer or within integer range' },
    send: (urls) => fetch(`${urls.s3}/${BUCKET}?max-keys=many`),
  },
];

// ---------------------------------------------------------------------------------------------
// Capture

/** A response as a fixture holds it. */
export interface AwsResponse {
  readonly status: number;
  /** Lower-case names; Date fixed, and a random request id replaced by a fixed one. */
  readonly headers: Readonly<Record<string, string>>;
  /** A JSON body as its value, anything else as a string. */
  readonly body: unknown;
}

/** One run of captureAws: the responses by fixture file, and what it opened (all closed and removed by then). */
export interface AwsCapture {
  readonly responses: ReadonlyMap<string, AwsResponse>;
  readonly urls: AwsUrls;
  readonly directory: string;
}

/** A fixture of the corpus as this script writes it. */
export interface AwsFixture extends AwsResponse {
  readonly name: string;
  readonly source: string;
  readonly expect: AwsExpect;
}

/** Headers that change between runs or say nothing about the error. */
const DROPPED = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/** dynalite's request id: 52 characters, A-Z and 0-9 (random base64, upper-cased, + and / as 0). */
const DYNALITE_REQUEST_ID = /^[A-Z0-9]{52}$/;

/** A request id of dynalite's shape, fixed for a fixture file. */
export function fixedRequestId(file: string): string {
  return createHash('sha512').update(file).digest().subarray(0, 39).toString('base64').toUpperCase().replace(/\+|\//g, '0');
}

/** The response as a fixture keeps it: the varying headers fixed or dropped, the body parsed if JSON. */
async function kept(file: string, response: Response): Promise<AwsResponse> {
  const headers: Record<string, string> = { date: FIXED_DATE };
  response.headers.forEach((value, name) => {
    if (DROPPED.has(name)) return;
    // Only a live id of the known shape is replaced: any other value is kept and shows as a change.
    headers[name] = name === 'x-amzn-requestid' && DYNALITE_REQUEST_ID.test(value) ? fixedRequestId(file) : value;
  });
  const text = await response.text();
  const json = /json/i.test(response.headers.get('content-type') ?? '');
  return { status: response.status, headers, body: json ? (JSON.parse(text) as unknown) : text };
}

/** Throws unless `response` is a 200, for the setup requests. */
async function ok(what: string, response: Response): Promise<void> {
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${what}: ${response.status} ${text}`);
}

/** Creates the table with hash key id (a string) and waits until it is ACTIVE. */
async function createTable(url: string): Promise<void> {
  await ok(
    `CreateTable ${TABLE}`,
    await dynamodb(url, 'CreateTable', {
      TableName: TABLE,
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  for (let attempt = 0; attempt < 50; attempt++) {
    const response = await dynamodb(url, 'DescribeTable', { TableName: TABLE });
    const described = (await response.json()) as { Table?: { TableStatus?: string } };
    if (described.Table?.TableStatus === 'ACTIVE') return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${TABLE} did not become ACTIVE`);
}

/** Closes a node:http server, its keep-alive connections first. */
function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
}

/**
 * Starts dynalite and s3rver on loopback, creates the table (with one item) and the bucket the
 * cases need, sends every case of CASES, and closes both servers and removes s3rver's directory
 * before it returns, whether it succeeded or not.
 */
export async function captureAws(): Promise<AwsCapture> {
  const directory = mkdtempSync(join(tmpdir(), 'capture-aws-'));
  const dynamo = dynalite({ createTableMs: 0 });
  let s3: S3rverInstance | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      dynamo.once('error', reject);
      dynamo.listen(0, '127.0.0.1', () => resolve());
    });
    s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory });
    const { port: s3Port } = await s3.run();
    const urls: AwsUrls = {
      dynamodb: `http://127.0.0.1:${(dynamo.address() as AddressInfo).port}`,
      s3: `http://127.0.0.1:${s3Port}`,
    };

    await createTable(urls.dynamodb);
    await ok('PutItem', await dynamodb(urls.dynamodb, 'PutItem', { TableName: TABLE, Item: { id: { S: '1' } } }));
    await ok(`PUT /${BUCKET}`, await fetch(`${urls.s3}/${BUCKET}`, { method: 'PUT' }));

    const responses = new Map<string, AwsResponse>();
    for (const c of CASES) responses.set(c.file, await kept(c.file, await c.send(urls)));
    return { responses, urls, directory };
  } finally {
    if (dynamo.listening) await closeServer(dynamo);
    if (s3?.httpServer?.listening) {
      s3.httpServer.closeAllConnections();
      await s3.close();
    }
    rmSync(directory, { recursive: true, force: true });
  }
}

/** The emulator a case was captured from, as its source names it. */
function emulatorOf(c: AwsCase): string {
  return c.service === 'dynamodb'
    ? `dynalite ${packageVersion('dynalite')} (a DynamoDB emulator)`
    : `s3rver ${packageVersion('s3rver')} (an S3 emulator)`;
}

/** Where a fixture comes from: the emulator and its version, this script, the request, the error format's docs. */
export function sourceOf(c: AwsCase): string {
  const replaced = c.service === 'dynamodb' ? '; its random x-amzn-requestid replaced by a fixed one of the same shape, Date by a fixed date' : '; Date fixed';
  return (
    `Captured from ${emulatorOf(c)} over loopback by scripts/capture-aws.ts: ${c.request}${replaced}. ` +
    `Error format: ${c.service === 'dynamodb' ? DYNAMODB_DOCS : S3_DOCS}`
  );
}

/** The fixture of a case from its response. */
export function fixtureOf(c: AwsCase, response: AwsResponse): AwsFixture {
  return { name: c.name, source: sourceOf(c), status: response.status, headers: response.headers, body: response.body, expect: c.expect };
}

/** A markdown table cell: no pipes or line breaks. */
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

async function capture(): Promise<void> {
  const { responses } = await captureAws();
  const rows: string[] = [];
  for (const c of CASES) {
    const fixture = fixtureOf(c, responses.get(c.file)!);
    writeFileSync(join(AWS_FIXTURES, c.file), `${JSON.stringify(fixture, null, 2)}\n`);
    const vendor = c.service === 'dynamodb' ? 'Amazon DynamoDB (dynalite)' : 'Amazon S3 (s3rver)';
    rows.push(`| [\`${c.file}\`](${c.file}) | ${vendor} | ${cell(c.shows)} | ${cell(fixture.source)} |`);
    process.stdout.write(`${c.file}: ${fixture.status} ${JSON.stringify(fixture.body).slice(0, 140)}\n`);
  }
  rows.sort();
  process.stdout.write(`\nwrote ${CASES.length} fixtures to ${AWS_FIXTURES}; their README rows:\n${rows.join('\n')}\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await capture();
