/** Where Stripe Checkout sends the payer back: says what happened and shows the balance once credited. */
import type { Api } from '../api';
import { ErrorNotice, usePoll } from '../ui';
import { dollars } from '../format';
import { navigate } from '../router';

export function CheckoutResultPage({
  api,
  outcome,
  sessionId,
}: {
  api: Api;
  outcome: 'success' | 'cancel';
  sessionId: string | null;
}) {
  const balance = usePoll(() => api.balance(), outcome === 'success' ? 3_000 : 0, [api]);
  const topups = usePoll(() => api.transactions('credit_topup'), outcome === 'success' ? 3_000 : 0, [api]);
  const credited = sessionId ? topups.data?.data.find((t) => t.description.includes(sessionId)) : topups.data?.data[0];
  return (
    <section aria-labelledby="checkout-title">
      {outcome === 'success' ? (
        <>
          <h1 id="checkout-title">Payment received</h1>
          <p role="status">
            {credited
              ? `${dollars(credited.amount)} was added to your balance.`
              : 'Stripe confirmed the payment; the credit appears as soon as Stripe notifies us.'}
          </p>
        </>
      ) : (
        <>
          <h1 id="checkout-title">Payment cancelled</h1>
          <p role="status">Nothing was charged and your balance is unchanged.</p>
        </>
      )}
      <ErrorNotice error={balance.error} />
      <p>
        Balance: <strong data-testid="balance">{balance.data ? dollars(balance.data.balance) : '…'}</strong>
      </p>
      <p>
        <a
          href="/console/spend"
          onClick={(e) => {
            e.preventDefault();
            navigate('/spend');
          }}
        >
          Back to spend
        </a>
      </p>
    </section>
  );
}
