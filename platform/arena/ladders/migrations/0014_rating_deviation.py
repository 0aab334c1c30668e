import math

from django.db import migrations, models
from django.db.models.functions import Sqrt

#: bots_sdk.rating's LOG_ODDS_PER_POINT and PRIOR_DRAWS as this migration was written.
LOG_ODDS_PER_POINT = math.log(10.0) / 400.0
PRIOR_DRAWS = 2.0


def deviations_of_existing_ratings(apps, schema_editor):  # type: ignore[no-untyped-def]
    """Each rating's deviation as its games would give it against equal opponents (p = 1/2:
    its prior's curvature plus a quarter of its 1v1 games' worth), until the next refit
    sets the model's own: every ladder with enough results is made due one."""
    Ladder = apps.get_model("ladders", "Ladder")
    Rating = apps.get_model("ladders", "Rating")
    for ladder in Ladder.objects.all():
        worth = 3.0 * (ladder.seats - 1) / (ladder.seats + 1)  # 1v1 games per rated unit
        information = PRIOR_DRAWS / 4.0 + models.F("rated_matches") * (worth / 4.0)
        Rating.objects.filter(ladder=ladder).update(
            deviation=1.0 / (LOG_ODDS_PER_POINT * Sqrt(information))
        )
    # refit.refit_due: a ladder with 50 units or more is refitted by the next sweep.
    Ladder.objects.update(refit_units=0)


class Migration(migrations.Migration):
    dependencies = [
        ("ladders", "0013_team_name"),
    ]

    operations = [
        migrations.AddField(
            model_name="rating",
            name="deviation",
            field=models.FloatField(default=245.67405854855014),
        ),
        migrations.AddField(
            model_name="ratingchange",
            name="deviation_after",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="ratingchange",
            name="deviation_before",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.RunPython(deviations_of_existing_ratings, migrations.RunPython.noop),
    ]
