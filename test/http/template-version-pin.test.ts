// A job without a template is extracted with exactly the template version its classification
// chose, even when the template gets a new version between the two. Through the API with an
// in-process worker: a platform vlm endpoint on a loopback server settles an ambiguous
// classification (two templates the embedded ranking cannot tell apart on a real Coolblue
// invoice), and while it is being asked, before it answers, an admin saves version 2 of the
// template it is about to choose. That moment is the whole window between classification and
// extraction, held open by the test for as long as the update takes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { data, upload, waitForJob } from '../helpers/documents.js';
import { type Harness, startHarness } from '../helpers/harness.js';
import { type Answer, type LoopbackServer, type Seen, startLoopback } from '../helpers/loopback-server.js';
import { chatCompletion } from '../helpers/chat-completion.js';

const COOLBLUE = data('invoice2data/compare/coolblue1.pdf');
const TENANT = 'races-pin';
const SCHEMA_V1 = {
  type: 'object',
  properties: { invoice_number: { type: 'string' }, total: { type: 'number', 'x-aliases': ['totaal'] } },
  'x-classification': { keywords: ['coolblue'] },
};
/** Version 2 asks for one more field, so the schema a model is sent tells the versions apart. */
const SCHEMA_V2 = { ...SCHEMA_V1, properties: { ...SCHEMA_V1.properties, order_number: { type: 'string' } } };

let h: Harness;
let vlm: LoopbackServer;
let admin: string;
const ids: Record<string, string> = {};

const completion = (content: unknown): Answer => chatCompletion(content, { prompt_tokens: 1000, completion_tokens: 20 });

const formatOf = (req: Seen): string => req.json.response_format?.json_schema?.name;
const textOf = (req: Seen): string => req.json.messages[1].content.find((p: { type: string }) => p.type === 'text').text;

beforeAll(async () => {
  h = await startHarness({ outboundAllow: ['127.0.0.1'] }, { workers: 1 });
  vlm = await startLoopback();
  await h.seedTenant(TENANT);
  admin = (await h.seedUser(TENANT, 'admin')).token!;
  for (const name of ['coolblue-consumer', 'coolblue-business']) {
    const res = await h.request('POST', '/v1/templates', { token: admin, body: { name, json_schema: SCHEMA_V1 } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    ids[name] = res.body.id;
  }
  const put = await h.request('PUT', '/v1/admin/platform/infra/vlm', {
    token: await h.adminToken(),
    body: { backend: 'custom_url', model: 'qwen2.5-vl-7b-instruct', base_url: `${vlm.url}/v1`, credentials: { api_key: 'sk-races-pin' }, max_retries: 0 },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
}, 60_000);

afterAll(async () => {
  await h?.close();
  await vlm?.close();
});

describe('the template version of a classified job', () => {
  it('is the one classification chose, for the extraction and in the record, though the template was updated in between', async () => {
    const chosen = ids['coolblue-business']!;
    let updated: { status: number; body: any } | null = null;
    vlm.handle(async (req) => {
      if (formatOf(req) === 'choose_template') {
        // The classification has ranked version 1; version 2 is saved before the choice is answered.
        updated = await h.request('PUT', `/v1/templates/${chosen}`, { token: admin, body: { name: 'coolblue-business', json_schema: SCHEMA_V2 } });
        const line = textOf(req).split('\n').find((l) => l.includes('"coolblue-business"'))!;
        return completion({ template_id: /id (\S+):/.exec(line)![1], reason: 'The invoice is addressed to a business customer.' });
      }
      const wrapped = req.json.response_format.json_schema.schema.properties?.values;
      const values = { invoice_number: '1161123713', total: 17.99 };
      return completion(wrapped ? { values, evidence_pages: [] } : values);
    });

    const res = await upload(h, admin, COOLBLUE);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const job = await waitForJob(h, admin, res.body.job_id, undefined, 150_000);

    expect(updated!.status, JSON.stringify(updated!.body)).toBe(200);
    expect(updated!.body.version).toBe(2);
    expect(job.classification).toMatchObject({ matched: true, template_id: chosen, version: 1, method: 'vlm' });
    expect(job.template_version).toBe(1);
    expect(job.result.extraction).toMatchObject({ template_id: chosen, template_version: 1 });
    // The model was asked for version 1's fields: nothing of version 2 reached it.
    const extractions = vlm.seen.filter((r) => formatOf(r) !== 'choose_template');
    expect(extractions.length).toBeGreaterThan(0);
    for (const sent of extractions) expect(JSON.stringify(sent.json)).not.toContain('order_number');
    expect(Object.keys(job.result.extraction.data).sort()).toEqual(['invoice_number', 'total']);
  }, 180_000);
});
