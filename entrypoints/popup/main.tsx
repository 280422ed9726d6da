import { render } from 'preact';
import '../../components/ui/theme.css';
import './popup.css';
import { PopupApp } from './App';
import { startTunablesSync } from '../../components/ui/tunables-sync';

startTunablesSync();
render(<PopupApp />, document.getElementById('app')!);
