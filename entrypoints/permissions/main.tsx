import { render } from 'preact';
import '../../components/ui/theme.css';
import { PermissionsApp } from './App';

render(<PermissionsApp />, document.getElementById('app')!);
