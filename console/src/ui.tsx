/** Small shared pieces: error notices in the API's words, a confirmation dialog, polling, a form's action. */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { ApiError } from './api';
import { navigate } from './router';

export function ErrorNotice({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error instanceof ApiError ? error : null;
  return (
    <div class="error" role="alert">
      <strong>{e ? `${e.status ? `${e.status} ` : ''}${e.code}` : 'Error'}</strong>
      <span> {e ? e.message : String((error as Error).message ?? error)}</span>
      {e && e.details.length > 0 ? (
        <ul>
          {e.details.map((d, i) => (
            <li key={i}>
              {d.path ? `${d.path}: ` : ''}
              {d.message}
            </li>
          ))}
        </ul>
      ) : null}
      {e?.requestId ? <small> (request {e.requestId})</small> : null}
    </div>
  );
}

/** Runs `load` now and every `everyMs` while the page is shown; returns the latest result and error. */
export function usePoll<T>(load: () => Promise<T>, everyMs: number, deps: unknown[] = []) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loadedAt, setLoadedAt] = useState<number | null>(null);
  const generation = useRef(0);
  const reload = async () => {
    const mine = ++generation.current;
    try {
      const value = await load();
      if (mine !== generation.current) return;
      setData(value);
      setError(null);
      setLoadedAt(Date.now());
    } catch (err) {
      if (mine === generation.current) setError(err);
    }
  };
  useEffect(() => {
    void reload();
    if (!everyMs) return undefined;
    const timer = setInterval(() => void reload(), everyMs);
    return () => {
      generation.current++;
      clearInterval(timer);
    };
  }, deps);
  return { data, error, loadedAt, reload };
}

/**
 * A form's action: `busy` while it runs (the form's buttons wait), and its error, shown until the next try.
 * With `leavesPage` a success keeps the form busy while the browser goes to another page.
 */
export function useAction() {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async (action: () => Promise<unknown>, opts: { leavesPage?: boolean } = {}): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await action();
      if (!opts.leavesPage) setBusy(false);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}

export function Confirm(props: {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  return (
    <dialog ref={ref} aria-labelledby="confirm-title" onClose={props.onCancel}>
      <h2 id="confirm-title">{props.title}</h2>
      <div>{props.children}</div>
      <form method="dialog" class="actions">
        <button type="button" class="secondary" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={props.onConfirm}>
          {props.confirmLabel}
        </button>
      </form>
    </dialog>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** A link inside the console: a real href (opens in a new tab too), followed without a reload. */
export function Link({ to, children, class: cls }: { to: string; children: ComponentChildren; class?: string }) {
  return (
    <a
      href={`/console${to}`}
      class={cls}
      onClick={(e) => {
        if (e.ctrlKey || e.metaKey || e.shiftKey) return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
