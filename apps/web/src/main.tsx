import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, createAppServices } from './app.tsx';

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

const services = createAppServices();

createRoot(container).render(
  <StrictMode>
    <App services={services} />
  </StrictMode>,
);
