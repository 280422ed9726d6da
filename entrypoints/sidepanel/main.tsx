import { render } from 'preact';
import '../../components/ui/theme.css';
import './sidepanel.css';
import { SidePanelApp } from './App';

// A held port tells the background a panel is open (it keeps the engine alive while one is).
chrome.runtime.connect({ name: 'sidepanel' });
render(<SidePanelApp />, document.getElementById('app')!);
