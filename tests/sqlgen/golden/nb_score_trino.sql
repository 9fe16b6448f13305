WITH "wml_param_lookup" AS (
  SELECT
    CAST("v"."code" AS BIGINT) AS "code",
    CAST("v"."lp_0" AS DOUBLE) AS "lp_0",
    CAST("v"."lp_1" AS DOUBLE) AS "lp_1"
  FROM (VALUES
    (0, -CAST(0.916290731874155e0 AS DOUBLE), -CAST(1.0986122886681096e0 AS DOUBLE)),
    (1, -CAST(0.916290731874155e0 AS DOUBLE), -CAST(1.0986122886681096e0 AS DOUBLE)),
    (2, -CAST(1.6094379124341003e0 AS DOUBLE), -CAST(1.0986122886681096e0 AS DOUBLE)),
    (3, -CAST(1.6094379124341003e0 AS DOUBLE), -CAST(1.791759469228055e0 AS DOUBLE)),
    (4, CAST(0.0e0 AS DOUBLE), CAST(0.0e0 AS DOUBLE))) AS v(code, lp_0, lp_1)
), wml_input AS (
  SELECT
    *
  FROM (
    SELECT
      *,
      "x" IS NULL
      OR ABS(CAST("x" AS DOUBLE)) <= CAST(1.7976931348623157e+308 AS DOUBLE) AS "wml_finite"
    FROM (
      SELECT
        "id",
        "c" AS "c",
        "x",
        "d" AS "d",
        "k",
        "y" AS "y"
      FROM "t"
    ) AS wml_text_columns
  ) AS wml_checked
), wml_terms AS (
  SELECT
    "s"."id" AS "wml_k_0",
    "s"."wml_finite" AS "wml_k_1",
    -CAST(0.6931471805599452e0 AS DOUBLE) AS "wml_t_0_0",
    -CAST(0.6931471805599452e0 AS DOUBLE) AS "wml_t_0_1",
    CASE
      WHEN "s"."c" IS NULL
      THEN CAST(0.0e0 AS DOUBLE)
      ELSE CASE "s"."c"
        WHEN 'a'
        THEN -CAST(0.5108256237659905e0 AS DOUBLE)
        WHEN 'b'
        THEN -CAST(0.916290731874155e0 AS DOUBLE)
        ELSE -CAST(1.6094379124341003e0 AS DOUBLE)
      END
    END AS "wml_t_1_0",
    CASE
      WHEN "s"."c" IS NULL
      THEN CAST(0.0e0 AS DOUBLE)
      ELSE CASE "s"."c"
        WHEN 'a'
        THEN -CAST(0.6931471805599453e0 AS DOUBLE)
        WHEN 'b'
        THEN -CAST(0.6931471805599453e0 AS DOUBLE)
        ELSE -CAST(1.3862943611198906e0 AS DOUBLE)
      END
    END AS "wml_t_1_1",
    CASE
      WHEN CAST("s"."x" AS DOUBLE) IS NULL OR CAST(1.6666666666666667e0 AS DOUBLE) IS NULL
      THEN CAST(0 AS DOUBLE)
      ELSE -0.5 * LN(2 * PI() * CAST(1.0555555562955554e0 AS DOUBLE)) - CAST((
        CAST("s"."x" AS DOUBLE) - CAST(1.6666666666666667e0 AS DOUBLE)
      ) * (
        CAST("s"."x" AS DOUBLE) - CAST(1.6666666666666667e0 AS DOUBLE)
      ) AS DOUBLE) / (
        2 * CAST(1.0555555562955554e0 AS DOUBLE)
      )
    END AS "wml_t_2_0",
    CASE
      WHEN CAST("s"."x" AS DOUBLE) IS NULL OR CAST(2.25e0 AS DOUBLE) IS NULL
      THEN CAST(0 AS DOUBLE)
      ELSE -0.5 * LN(2 * PI() * CAST(0.06250000074e0 AS DOUBLE)) - CAST((
        CAST("s"."x" AS DOUBLE) - CAST(2.25e0 AS DOUBLE)
      ) * (
        CAST("s"."x" AS DOUBLE) - CAST(2.25e0 AS DOUBLE)
      ) AS DOUBLE) / (
        2 * CAST(0.06250000074e0 AS DOUBLE)
      )
    END AS "wml_t_2_1",
    CASE
      WHEN "s"."d" IS NULL
      THEN CAST(0.0e0 AS DOUBLE)
      ELSE CASE "s"."d"
        WHEN 'x'
        THEN -CAST(0.5108256237659905e0 AS DOUBLE)
        WHEN 'y'
        THEN -CAST(0.916290731874155e0 AS DOUBLE)
        ELSE -CAST(1.6094379124341003e0 AS DOUBLE)
      END
    END AS "wml_t_3_0",
    CASE
      WHEN "s"."d" IS NULL
      THEN CAST(0.0e0 AS DOUBLE)
      ELSE CASE "s"."d"
        WHEN 'x'
        THEN -CAST(0.6931471805599453e0 AS DOUBLE)
        WHEN 'y'
        THEN -CAST(0.6931471805599453e0 AS DOUBLE)
        ELSE -CAST(1.3862943611198906e0 AS DOUBLE)
      END
    END AS "wml_t_3_1",
    "wml_a3"."lp_0" AS "wml_t_4_0",
    "wml_a3"."lp_1" AS "wml_t_4_1"
  FROM wml_input AS s
  INNER JOIN "wml_param_lookup" AS wml_a3
    ON "wml_a3"."code" = CAST(0 + CASE
      WHEN "s"."k" IS NULL
      THEN 4
      WHEN "s"."k" < 0 OR "s"."k" > 2
      THEN 3
      ELSE CAST("s"."k" AS BIGINT) - 0
    END AS BIGINT)
), wml_unchecked AS (
  SELECT
    "wml_k_0",
    "wml_k_1",
    (
      (
        "wml_t_0_0" + "wml_t_1_0"
      ) + (
        "wml_t_2_0" + "wml_t_3_0"
      )
    ) + "wml_t_4_0" AS "wml_j_0",
    (
      (
        "wml_t_0_1" + "wml_t_1_1"
      ) + (
        "wml_t_2_1" + "wml_t_3_1"
      )
    ) + "wml_t_4_1" AS "wml_j_1"
  FROM wml_terms
), wml_joint AS (
  SELECT
    "wml_k_0",
    "wml_k_1",
    CASE WHEN "wml_k_1" THEN "wml_j_0" END AS "wml_j_0",
    CASE WHEN "wml_k_1" THEN "wml_j_1" END AS "wml_j_1"
  FROM wml_unchecked
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
    CAST("wml_s_1" AS DOUBLE) / NULLIF("wml_total", 0) AS "wml_p_1"
  FROM wml_totalled
)
SELECT
  "wml_k_0" AS "id",
  "wml_p_0" AS "p_p",
  "wml_p_1" AS "p_q",
  CASE WHEN "wml_j_0" = "wml_max" THEN 'p' WHEN "wml_j_1" = "wml_max" THEN 'q' END AS "prediction"
FROM wml_posterior
