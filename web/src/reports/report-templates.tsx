/** The report templates a schedule can use, shown on the Reports tab. */
import type { ReportTemplate } from '../../../src/client/api-client.js';
import { sameOriginPath } from './same-origin-path.js';

/** The templates a schedule can use: what each draws, with a picture of its first page. */
export function ReportTemplates(props: { templates: readonly ReportTemplate[] }) {
  return (
    <ul className="report-templates">
      {props.templates.map((t) => (
        <li key={t.template_uuid} className="card">
          <img src={sameOriginPath(t.preview_image_url)} alt={`Preview of the ${t.template_name} template`} />
          <div>
            <h3>{t.template_name}</h3>
            <p>{t.description}</p>
            <p className="muted">Sections: {t.sections.map((s) => s.name).join(', ')}</p>
          </div>
        </li>
      ))}
    </ul>
  );
}
