import './styles/tokens.css';
import './styles/base.css';
import { render } from 'preact';
import { App } from './components/App.js';
import { startAuth } from './stores/auth.js';
import { registerServiceWorker } from './stores/push.js';

void startAuth();
registerServiceWorker();
// A pairing link opened in a tab that already shows the app changes only the fragment: no reload, so listen for it.
window.addEventListener('hashchange', () => void startAuth());
render(<App />, document.getElementById('app')!);
