import { render } from 'preact';
import '../../components/ui/theme.css';
import { PermissionsApp } from './App';
import { startTunablesSync } from '../../components/ui/tunables-sync';

startTunablesSync();
render(<PermissionsApp />, document.getElementById('app')!);
