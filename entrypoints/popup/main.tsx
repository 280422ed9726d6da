import { render } from 'preact';
import '../../components/ui/theme.css';
import './popup.css';
import { PopupApp } from './App';

render(<PopupApp />, document.getElementById('app')!);
