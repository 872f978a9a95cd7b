/** Spend: the balance, the transactions with the type filter, and a top-up through Stripe Checkout. */
import { useState } from 'preact/hooks';
import type { Api } from '../api';
import { Empty, ErrorNotice, usePoll } from '../ui';
import { dollars, localTime } from '../format';

const TYPES = ['instance_charge', 'credit_topup', 'credit_grant', 'credit_refund', 'credit_dispute'];

function TopUp({ api }: { api: Api }) {
  const [amount, setAmount] = useState('25');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { checkout_url } = await api.topUp(Number(amount));
      location.assign(checkout_url);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <form class="topup" onSubmit={submit}>
      <h2>Add credit</h2>
      <label for="topup-amount">Amount (USD, at least $5)</label>
      <input id="topup-amount" type="number" min="5" step="0.01" inputMode="decimal" required value={amount}
        onInput={(e) => setAmount((e.target as HTMLInputElement).value)} />
      <button type="submit" disabled={busy}>{busy ? 'Opening checkout…' : 'Pay with Stripe'}</button>
      <ErrorNotice error={error} />
    </form>
  );
}

export function SpendPage({ api, onAuthError }: { api: Api; onAuthError: (e: unknown) => void }) {
  const [type, setType] = useState('');
  const balance = usePoll(() => api.balance().catch((e) => { onAuthError(e); throw e; }), 15_000, [api]);
  const txns = usePoll(() => api.transactions(type || undefined), 15_000, [api, type]);
  return (
    <section aria-labelledby="spend-title">
      <div class="page-head"><h1 id="spend-title">Spend</h1></div>
      <ErrorNotice error={balance.error} />
      <dl class="cards">
        <div><dt>Balance</dt><dd data-testid="balance">{balance.data ? dollars(balance.data.balance) : '…'}</dd></div>
      </dl>
      <TopUp api={api} />
      <h2>Transactions</h2>
      <label for="txn-type">Type</label>{' '}
      <select id="txn-type" value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value)}>
        <option value="">All</option>
        {TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
      </select>
      <ErrorNotice error={txns.error} />
      {txns.data && txns.data.data.length === 0 ? <Empty>No transactions{type ? ` of type ${type}` : ''} yet.</Empty> : null}
      {txns.data && txns.data.data.length > 0 ? (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Transactions, newest first</caption>
            <thead><tr><th scope="col">When</th><th scope="col">Type</th><th scope="col">Description</th><th scope="col" class="num">Amount</th><th scope="col" class="num">Balance after</th></tr></thead>
            <tbody>
              {txns.data.data.map((t) => (
                <tr key={t.id}>
                  <td>{localTime(t.created_at)}</td><td>{t.type}</td><td>{t.description}</td>
                  <td class={`num ${t.amount < 0 ? 'neg' : 'pos'}`}>{dollars(t.amount, t.type === 'instance_charge' ? 4 : 2)}</td>
                  <td class="num">{dollars(t.balance_after, 4)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
