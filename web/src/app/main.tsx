import '@picocss/pico/css/pico.blue.min.css';
import '../shared/base.css';
import './app.css';
import { boot } from '../shared/boot';
import { App } from './App';

void boot((settings) => <App settings={settings} />);
