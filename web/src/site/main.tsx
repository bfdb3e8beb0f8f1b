import '@picocss/pico/css/pico.blue.min.css';
import '../shared/base.css';
import './site.css';
import { boot } from '../shared/boot';
import { Site } from './Site';

void boot((settings) => <Site settings={settings} />);
