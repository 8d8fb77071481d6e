"""The learned candidate ranking's weights (`learned_ranking`): fitted by
`python -m bench.fit_candidate_ranking` (do not edit by hand) on the described requests of the
ten development sets (tuned, tuned 2, held out 1-8), a listwise softmax over each request's
ten best candidates by words with a ridge penalty, from `bench/candidate_ranking_groups.json`.
Each feature (`candidate_features.FEATURES`) is standardised by its mean and scale, then
weighted; `margin` (on the score's log-probability scale) attaches a second candidate.
Fitted on all ten sets, so their figures with these weights are in-sample; the honest
estimate is the script's leave-one-set-out table. Only with meaning: ranked by words alone
(no model), a fit without the meaning features did not beat BM25F's order out of sample
(45 against 43 of 87 first picks, lower recall), so words alone keep that order."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LinearRanking:
    """A fitted linear ranking: each feature standardised by its mean and scale, weighted."""

    features: tuple[str, ...]
    means: tuple[float, ...]
    scales: tuple[float, ...]
    weights: tuple[float, ...]
    margin: float
    """A second candidate is attached when its score is within this of the first's."""

    @classmethod
    def of(cls, margin: float, rows: tuple[tuple[str, float, float, float], ...]
           ) -> LinearRanking:
        """From one (feature, mean, scale, weight) row per feature."""
        return cls(tuple(r[0] for r in rows), tuple(r[1] for r in rows),
                   tuple(r[2] for r in rows), tuple(r[3] for r in rows), margin)


WITH_MEANING = LinearRanking.of(
    margin=0.0,
    rows=(
        # feature, mean, scale, weight (per standardised unit)
        ('words', 0.67492, 0.20707, 0.3042),
        ('words_rank', 1.51044, 0.69541, -0.2245),
        ('name_share', 0.10064, 0.14763, 0.3994),
        ('outer_share', 0.06635, 0.1122, 0.0247),
        ('doc_share', 0.18825, 0.18436, 0.0258),
        ('body_share', 0.04779, 0.10242, 0.0603),
        ('coverage', 0.40304, 0.21212, 0.3427),
        ('rarest', 0.2375, 0.42555, 0.0711),
        ('meaning', 0.35197, 0.1601, 0.5853),
        ('meaning_gap', -0.19473, 0.14089, 0.665),
        ('is_class', 0.1075, 0.30975, 0.1186),
        ('is_method', 0.66, 0.47371, -0.0777),
        ('is_function', 0.2275, 0.41922, 0.0305),
        ('is_constant', 0.005, 0.07053, -0.1025),
        ('log_lines', 2.92323, 0.94934, 0.2383),
        ('depth', 1.6175, 0.486, -0.0059),
        ('private', 0.14625, 0.35336, 0.1188),
        ('dunder', 0.1, 0.3, 0.002),
        ('log_referenced', 1.95419, 1.35937, 0.0361),
        ('file_rank', 0.64497, 1.06859, -0.0301),
        ('raises', 0.11375, 0.31751, 0.0235),
        ('not_source', 0.0, 1.0, 0.0),
        ('exact_name', 0.00875, 0.09313, -0.0013),
        ('doc_size', 2.58942, 0.68817, 0.0513),
        ('file_votes', 0.38944, 0.31481, -0.0774),
        ('class_votes', 0.16389, 0.24259, 0.0243),
        ('near', 0.045, 0.185, 0.1068),
    ))
