/**
 * Terminates an instance through the API and waits for `terminated`: 200 at once, or 202 while the end is still
 * under way past the answer bound (a loaded machine, a file's tests side by side), then 200 when asked again.
 * For tests whose point is what the terminate leaves behind, not how fast it answers.
 */
import { eventually } from './process';

interface Answer {
  status: number;
  body: { status?: string };
}
interface Http {
  post(url: string): { set(headers: Record<string, string>): PromiseLike<Answer> };
}

export async function terminated(http: Http, auth: Record<string, string>, id: string): Promise<void> {
  await eventually(`${id} terminated`, async () => {
    const res = await http.post(`/v1/compute/${id}/terminate`).set(auth);
    if (res.status !== 200 && res.status !== 202) {
      throw new Error(`terminate answered ${res.status} ${JSON.stringify(res.body)}`);
    }
    return res.status === 200 && res.body.status === 'terminated' ? true : undefined;
  });
}
