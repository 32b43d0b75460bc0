import { auth, authError } from '../stores/auth.js';

/** Shown without a token, or after the daemon refused the one this browser held (the device was revoked). */
export function Unpaired() {
  const revoked = auth.value === 'revoked';
  return (
    <div class="screen center" data-screen={revoked ? 'revoked' : 'unpaired'}>
      <div class="card">
        <div class="logo" aria-hidden="true" />
        <h1>{revoked ? 'This device was unpaired' : 'Pair this browser'}</h1>
        <p>
          {revoked
            ? 'Leo no longer accepts this device. Pair it again to keep going.'
            : 'This browser is not paired with your Leo yet.'}
        </p>
        <p>
          On the machine running Leo, run <code>leo device pair &lt;name&gt;</code> and open the link (or scan the QR
          code) it prints; on that machine itself, <code>leo open</code> pairs its browser in one click.
        </p>
        {authError.value && <p class="error">{authError.value}</p>}
      </div>
    </div>
  );
}
