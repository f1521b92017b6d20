import { Module, type DynamicModule } from '@nestjs/common';
import { AssetModule } from '@thumbforge/asset';
import { BillingModule } from '@thumbforge/billing';
import { GatewayModule } from '@thumbforge/gateway';
import { InfrastructureModule, type Infrastructure } from '@thumbforge/platform';
import { RenderingModule } from '@thumbforge/rendering';
import { WebhookDeliveryModule } from '@thumbforge/webhook-delivery';

/** The five services in one Nest application; they still meet only on the event log. */
@Module({})
export class EmbeddedAppModule {
  static register(infra: Infrastructure): DynamicModule {
    return {
      module: EmbeddedAppModule,
      imports: [
        InfrastructureModule.forRoot(infra),
        GatewayModule.register({ serveCdn: true }),
        BillingModule,
        AssetModule,
        RenderingModule,
        WebhookDeliveryModule,
      ],
    };
  }
}
