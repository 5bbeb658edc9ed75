/** The report templates a schedule can use, shown on the Reports tab. */
import { Badge, Group, Paper, Text, Title } from '@mantine/core';
import type { ReportTemplate } from '../../../src/client/api-client.js';
import { sameOriginPath } from './same-origin-path.js';
import './reports.css';

const capitalised = (name: string) => `${name.charAt(0).toUpperCase()}${name.slice(1)}`;

/** The templates a schedule can use: what each draws, with a picture of its first page. */
export function ReportTemplates(props: { templates: readonly ReportTemplate[] }) {
  return (
    <ul className="card-grid report-templates">
      {props.templates.map((t) => (
        <Paper withBorder component="li" key={t.template_uuid} className="report-template">
          <img
            src={sameOriginPath(t.preview_image_url)}
            alt={`Preview of the ${t.template_name} template`}
            className="report-template-preview"
          />
          <div className="report-template-text">
            <Title order={3} size="h5">
              {t.template_name}
            </Title>
            <Text size="sm" mt={4}>
              {t.description}
            </Text>
            <Group gap={4} mt="xs" aria-label="Sections" role="list">
              {t.sections.map((s) => (
                <Badge key={s.name} variant="light" color="gray" size="sm" role="listitem">
                  {capitalised(s.name)}
                </Badge>
              ))}
            </Group>
          </div>
        </Paper>
      ))}
    </ul>
  );
}
