WITH "wml_param_classes" AS (
  SELECT
    CAST("v"."wml_part" AS INTEGER) AS "wml_part",
    CAST("v"."class_index" AS INTEGER) AS "class_index",
    CAST("v"."class_label" AS VARCHAR) AS "class_label",
    CAST("v"."n" AS BIGINT) AS "n",
    CAST("v"."log_prior" AS DOUBLE) AS "log_prior"
  FROM (VALUES
    (0, 0, 'p', 3, CAST(-0.6931471805599452 AS DOUBLE)),
    (0, 1, 'q', 3, CAST(-0.6931471805599452 AS DOUBLE))) AS v(wml_part, class_index, class_label, n, log_prior)
), "wml_param_categorical" AS (
  SELECT
    CAST("v"."wml_part" AS INTEGER) AS "wml_part",
    CAST("v"."attribute" AS VARCHAR) AS "attribute",
    CAST("v"."value" AS VARCHAR) AS "value",
    CAST("v"."class_index" AS INTEGER) AS "class_index",
    CAST("v"."n" AS BIGINT) AS "n",
    CAST("v"."log_prob" AS DOUBLE) AS "log_prob"
  FROM (VALUES
    (0, 'c', 'a', 0, 2, CAST(-0.5108256237659905 AS DOUBLE)),
    (0, 'c', 'a', 1, 1, CAST(-0.6931471805599453 AS DOUBLE)),
    (0, 'c', 'b', 0, 1, CAST(-0.916290731874155 AS DOUBLE)),
    (0, 'c', 'b', 1, 1, CAST(-0.6931471805599453 AS DOUBLE)),
    (0, 'd', 'x', 0, 2, CAST(-0.5108256237659905 AS DOUBLE)),
    (0, 'd', 'x', 1, 1, CAST(-0.6931471805599453 AS DOUBLE)),
    (0, 'd', 'y', 0, 1, CAST(-0.916290731874155 AS DOUBLE)),
    (0, 'd', 'y', 1, 1, CAST(-0.6931471805599453 AS DOUBLE)),
    (0, 'k', '0', 0, 1, CAST(-0.916290731874155 AS DOUBLE)),
    (0, 'k', '0', 1, 1, CAST(-1.0986122886681096 AS DOUBLE)),
    (0, 'k', '1', 0, 1, CAST(-0.916290731874155 AS DOUBLE)),
    (0, 'k', '1', 1, 1, CAST(-1.0986122886681096 AS DOUBLE)),
    (0, 'k', '2', 0, 0, CAST(-1.6094379124341003 AS DOUBLE)),
    (0, 'k', '2', 1, 1, CAST(-1.0986122886681096 AS DOUBLE))) AS v(wml_part, attribute, value, class_index, n, log_prob)
), "wml_param_unseen" AS (
  SELECT
    CAST("v"."wml_part" AS INTEGER) AS "wml_part",
    CAST("v"."attribute" AS VARCHAR) AS "attribute",
    CAST("v"."class_index" AS INTEGER) AS "class_index",
    CAST("v"."n_class" AS BIGINT) AS "n_class",
    CAST("v"."n_values" AS BIGINT) AS "n_values",
    CAST("v"."log_prob" AS DOUBLE) AS "log_prob"
  FROM (VALUES
    (0, 'c', 0, 3, 2, CAST(-1.6094379124341003 AS DOUBLE)),
    (0, 'c', 1, 2, 2, CAST(-1.3862943611198906 AS DOUBLE)),
    (0, 'd', 0, 3, 2, CAST(-1.6094379124341003 AS DOUBLE)),
    (0, 'd', 1, 2, 2, CAST(-1.3862943611198906 AS DOUBLE)),
    (0, 'k', 0, 2, 3, CAST(-1.6094379124341003 AS DOUBLE)),
    (0, 'k', 1, 3, 3, CAST(-1.791759469228055 AS DOUBLE))) AS v(wml_part, attribute, class_index, n_class, n_values, log_prob)
), "wml_param_gaussian" AS (
  SELECT
    CAST("v"."wml_part" AS INTEGER) AS "wml_part",
    CAST("v"."attribute" AS VARCHAR) AS "attribute",
    CAST("v"."class_index" AS INTEGER) AS "class_index",
    CAST("v"."n" AS BIGINT) AS "n",
    CAST("v"."mean" AS DOUBLE) AS "mean",
    CAST("v"."variance" AS DOUBLE) AS "variance"
  FROM (VALUES
    (
      0,
      'x',
      0,
      3,
      CAST(1.6666666666666667 AS DOUBLE),
      CAST(1.0555555562955554 AS DOUBLE)
    ),
    (0, 'x', 1, 2, CAST(2.25 AS DOUBLE), CAST(0.06250000074 AS DOUBLE))) AS v(wml_part, attribute, class_index, n, mean, variance)
), "wml_param_lookup" AS (
  SELECT
    CAST("v"."code" AS BIGINT) AS "code",
    CAST("v"."lp_0" AS DOUBLE) AS "lp_0",
    CAST("v"."lp_1" AS DOUBLE) AS "lp_1"
  FROM (VALUES
    (0, CAST(-0.916290731874155 AS DOUBLE), CAST(-1.0986122886681096 AS DOUBLE)),
    (1, CAST(-0.916290731874155 AS DOUBLE), CAST(-1.0986122886681096 AS DOUBLE)),
    (2, CAST(-1.6094379124341003 AS DOUBLE), CAST(-1.0986122886681096 AS DOUBLE)),
    (3, CAST(-1.6094379124341003 AS DOUBLE), CAST(-1.791759469228055 AS DOUBLE)),
    (4, CAST(0.0 AS DOUBLE), CAST(0.0 AS DOUBLE))) AS v(code, lp_0, lp_1)
), wml_input AS (
  SELECT
    *
  FROM "t"
), wml_joint AS (
  SELECT
    "s"."id" AS "wml_k_0",
    (
      (
        "wml_prior"."lp_0" + CASE
          WHEN "s"."c" IS NULL
          THEN CAST(0 AS DOUBLE)
          WHEN "wml_a0"."value" IS NULL
          THEN "wml_a0_unseen"."lp_0"
          ELSE "wml_a0"."lp_0"
        END
      ) + (
        CASE
          WHEN CAST("s"."x" AS DOUBLE) IS NULL OR "wml_g1_mean"."mean_0" IS NULL
          THEN CAST(0 AS DOUBLE)
          ELSE -0.5 * LN(2 * PI() * "wml_g1_var"."var_0") - CAST((
            CAST("s"."x" AS DOUBLE) - "wml_g1_mean"."mean_0"
          ) * (
            CAST("s"."x" AS DOUBLE) - "wml_g1_mean"."mean_0"
          ) AS DOUBLE) / (
            2 * "wml_g1_var"."var_0"
          )
        END + CASE
          WHEN "s"."d" IS NULL
          THEN CAST(0 AS DOUBLE)
          WHEN "wml_a2"."value" IS NULL
          THEN "wml_a2_unseen"."lp_0"
          ELSE "wml_a2"."lp_0"
        END
      )
    ) + "wml_a3"."lp_0" AS "wml_j_0",
    (
      (
        "wml_prior"."lp_1" + CASE
          WHEN "s"."c" IS NULL
          THEN CAST(0 AS DOUBLE)
          WHEN "wml_a0"."value" IS NULL
          THEN "wml_a0_unseen"."lp_1"
          ELSE "wml_a0"."lp_1"
        END
      ) + (
        CASE
          WHEN CAST("s"."x" AS DOUBLE) IS NULL OR "wml_g1_mean"."mean_1" IS NULL
          THEN CAST(0 AS DOUBLE)
          ELSE -0.5 * LN(2 * PI() * "wml_g1_var"."var_1") - CAST((
            CAST("s"."x" AS DOUBLE) - "wml_g1_mean"."mean_1"
          ) * (
            CAST("s"."x" AS DOUBLE) - "wml_g1_mean"."mean_1"
          ) AS DOUBLE) / (
            2 * "wml_g1_var"."var_1"
          )
        END + CASE
          WHEN "s"."d" IS NULL
          THEN CAST(0 AS DOUBLE)
          WHEN "wml_a2"."value" IS NULL
          THEN "wml_a2_unseen"."lp_1"
          ELSE "wml_a2"."lp_1"
        END
      )
    ) + "wml_a3"."lp_1" AS "wml_j_1"
  FROM wml_input AS s
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prior" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prior" END) AS "lp_1"
    FROM "wml_param_classes" AS p
    WHERE
      TRUE
    GROUP BY
      p.wml_part
  ) AS wml_prior
    ON "wml_prior"."wml_part" = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      "p"."value" AS "value",
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml_param_categorical" AS p
    WHERE
      p.attribute = 'c'
    GROUP BY
      p.wml_part,
      "p"."value"
  ) AS wml_a0
    ON "wml_a0"."value" = CAST("s"."c" AS VARCHAR) AND "wml_a0"."wml_part" = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml_param_unseen" AS p
    WHERE
      "p"."attribute" = 'c'
    GROUP BY
      p.wml_part
  ) AS wml_a0_unseen
    ON "wml_a0_unseen"."wml_part" = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      MAX(CASE WHEN p.class_index = 0 THEN "p"."mean" END) AS "mean_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."mean" END) AS "mean_1"
    FROM "wml_param_gaussian" AS p
    WHERE
      "p"."attribute" = 'x'
    GROUP BY
      p.wml_part
  ) AS wml_g1_mean
    ON "wml_g1_mean"."wml_part" = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      MAX(CASE WHEN p.class_index = 0 THEN "p"."variance" END) AS "var_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."variance" END) AS "var_1"
    FROM "wml_param_gaussian" AS p
    WHERE
      "p"."attribute" = 'x'
    GROUP BY
      p.wml_part
  ) AS wml_g1_var
    ON "wml_g1_var"."wml_part" = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      "p"."value" AS "value",
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml_param_categorical" AS p
    WHERE
      p.attribute = 'd'
    GROUP BY
      p.wml_part,
      "p"."value"
  ) AS wml_a2
    ON "wml_a2"."value" = CAST("s"."d" AS VARCHAR) AND "wml_a2"."wml_part" = 0
  LEFT JOIN (
    SELECT
      p.wml_part AS wml_part,
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml_param_unseen" AS p
    WHERE
      "p"."attribute" = 'd'
    GROUP BY
      p.wml_part
  ) AS wml_a2_unseen
    ON "wml_a2_unseen"."wml_part" = 0
  INNER JOIN "wml_param_lookup" AS wml_a3
    ON "wml_a3"."code" = CAST(0 + CASE
      WHEN "s"."k" IS NULL
      THEN 4
      WHEN "s"."k" < 0 OR "s"."k" > 2
      THEN 3
      ELSE CAST("s"."k" AS BIGINT) - 0
    END AS BIGINT)
), wml_maxed AS (
  SELECT
    *,
    GREATEST("wml_j_0", "wml_j_1") AS "wml_max"
  FROM wml_joint
), wml_shifted AS (
  SELECT
    *,
    CASE
      WHEN "wml_j_0" IS NULL OR "wml_j_0" - "wml_max" < -708
      THEN CAST(0 AS DOUBLE)
      ELSE EXP("wml_j_0" - "wml_max")
    END AS "wml_s_0",
    CASE
      WHEN "wml_j_1" IS NULL OR "wml_j_1" - "wml_max" < -708
      THEN CAST(0 AS DOUBLE)
      ELSE EXP("wml_j_1" - "wml_max")
    END AS "wml_s_1"
  FROM wml_maxed
), wml_totalled AS (
  SELECT
    *,
    "wml_s_0" + "wml_s_1" AS "wml_total"
  FROM wml_shifted
), wml_posterior AS (
  SELECT
    *,
    CAST("wml_s_0" AS DOUBLE) / NULLIF("wml_total", 0) AS "wml_p_0",
    "wml_j_0" - "wml_max" - LN(NULLIF("wml_total", 0)) AS "wml_lp_0",
    CAST("wml_s_1" AS DOUBLE) / NULLIF("wml_total", 0) AS "wml_p_1",
    "wml_j_1" - "wml_max" - LN(NULLIF("wml_total", 0)) AS "wml_lp_1"
  FROM wml_totalled
)
SELECT
  "wml_k_0" AS "id",
  "wml_p_0" AS "p_p",
  "wml_p_1" AS "p_q",
  CASE WHEN "wml_j_0" = "wml_max" THEN 'p' WHEN "wml_j_1" = "wml_max" THEN 'q' END AS "prediction"
FROM wml_posterior
