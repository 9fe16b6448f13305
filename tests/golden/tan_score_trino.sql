WITH wml_input AS (
  SELECT
    *
  FROM "main"."t"
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
          WHEN CASE
            WHEN "s"."x" IS NULL
            THEN NULL
            WHEN "s"."x" <= CAST(0.5 AS DOUBLE)
            THEN 0
            WHEN "s"."x" <= CAST(1.5 AS DOUBLE)
            THEN 1
            WHEN "s"."x" <= CAST(2.0 AS DOUBLE)
            THEN 2
            WHEN "s"."x" <= CAST(2.5 AS DOUBLE)
            THEN 3
            ELSE 4
          END IS NULL
          THEN CAST(0 AS DOUBLE)
          WHEN NOT "wml_t1"."value" IS NULL
          THEN "wml_t1"."lp_0"
          WHEN NOT "wml_a1"."value" IS NULL AND NOT "wml_q1"."parent_value" IS NULL
          THEN "wml_q1"."lp_0"
          ELSE CASE
            WHEN CASE
              WHEN "s"."x" IS NULL
              THEN NULL
              WHEN "s"."x" <= CAST(0.5 AS DOUBLE)
              THEN 0
              WHEN "s"."x" <= CAST(1.5 AS DOUBLE)
              THEN 1
              WHEN "s"."x" <= CAST(2.0 AS DOUBLE)
              THEN 2
              WHEN "s"."x" <= CAST(2.5 AS DOUBLE)
              THEN 3
              ELSE 4
            END IS NULL
            THEN CAST(0 AS DOUBLE)
            WHEN "wml_a1"."value" IS NULL
            THEN "wml_a1_unseen"."lp_0"
            ELSE "wml_a1"."lp_0"
          END
        END + CASE
          WHEN "s"."d" IS NULL
          THEN CAST(0 AS DOUBLE)
          WHEN NOT "wml_t2"."value" IS NULL
          THEN "wml_t2"."lp_0"
          WHEN NOT "wml_a2"."value" IS NULL AND NOT "wml_q2"."parent_value" IS NULL
          THEN "wml_q2"."lp_0"
          ELSE CASE
            WHEN "s"."d" IS NULL
            THEN CAST(0 AS DOUBLE)
            WHEN "wml_a2"."value" IS NULL
            THEN "wml_a2_unseen"."lp_0"
            ELSE "wml_a2"."lp_0"
          END
        END
      )
    ) + CASE
      WHEN "s"."k" IS NULL
      THEN CAST(0 AS DOUBLE)
      WHEN NOT "wml_t3"."value" IS NULL
      THEN "wml_t3"."lp_0"
      WHEN NOT "wml_a3"."value" IS NULL AND NOT "wml_q3"."parent_value" IS NULL
      THEN "wml_q3"."lp_0"
      ELSE CASE
        WHEN "s"."k" IS NULL
        THEN CAST(0 AS DOUBLE)
        WHEN "wml_a3"."value" IS NULL
        THEN "wml_a3_unseen"."lp_0"
        ELSE "wml_a3"."lp_0"
      END
    END AS "wml_j_0",
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
          WHEN CASE
            WHEN "s"."x" IS NULL
            THEN NULL
            WHEN "s"."x" <= CAST(0.5 AS DOUBLE)
            THEN 0
            WHEN "s"."x" <= CAST(1.5 AS DOUBLE)
            THEN 1
            WHEN "s"."x" <= CAST(2.0 AS DOUBLE)
            THEN 2
            WHEN "s"."x" <= CAST(2.5 AS DOUBLE)
            THEN 3
            ELSE 4
          END IS NULL
          THEN CAST(0 AS DOUBLE)
          WHEN NOT "wml_t1"."value" IS NULL
          THEN "wml_t1"."lp_1"
          WHEN NOT "wml_a1"."value" IS NULL AND NOT "wml_q1"."parent_value" IS NULL
          THEN "wml_q1"."lp_1"
          ELSE CASE
            WHEN CASE
              WHEN "s"."x" IS NULL
              THEN NULL
              WHEN "s"."x" <= CAST(0.5 AS DOUBLE)
              THEN 0
              WHEN "s"."x" <= CAST(1.5 AS DOUBLE)
              THEN 1
              WHEN "s"."x" <= CAST(2.0 AS DOUBLE)
              THEN 2
              WHEN "s"."x" <= CAST(2.5 AS DOUBLE)
              THEN 3
              ELSE 4
            END IS NULL
            THEN CAST(0 AS DOUBLE)
            WHEN "wml_a1"."value" IS NULL
            THEN "wml_a1_unseen"."lp_1"
            ELSE "wml_a1"."lp_1"
          END
        END + CASE
          WHEN "s"."d" IS NULL
          THEN CAST(0 AS DOUBLE)
          WHEN NOT "wml_t2"."value" IS NULL
          THEN "wml_t2"."lp_1"
          WHEN NOT "wml_a2"."value" IS NULL AND NOT "wml_q2"."parent_value" IS NULL
          THEN "wml_q2"."lp_1"
          ELSE CASE
            WHEN "s"."d" IS NULL
            THEN CAST(0 AS DOUBLE)
            WHEN "wml_a2"."value" IS NULL
            THEN "wml_a2_unseen"."lp_1"
            ELSE "wml_a2"."lp_1"
          END
        END
      )
    ) + CASE
      WHEN "s"."k" IS NULL
      THEN CAST(0 AS DOUBLE)
      WHEN NOT "wml_t3"."value" IS NULL
      THEN "wml_t3"."lp_1"
      WHEN NOT "wml_a3"."value" IS NULL AND NOT "wml_q3"."parent_value" IS NULL
      THEN "wml_q3"."lp_1"
      ELSE CASE
        WHEN "s"."k" IS NULL
        THEN CAST(0 AS DOUBLE)
        WHEN "wml_a3"."value" IS NULL
        THEN "wml_a3_unseen"."lp_1"
        ELSE "wml_a3"."lp_1"
      END
    END AS "wml_j_1"
  FROM wml_input AS s
  CROSS JOIN (
    SELECT
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prior" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prior" END) AS "lp_1"
    FROM "wml"."MODEL_classes" AS p
    WHERE
      TRUE
  ) AS wml_prior
  LEFT JOIN (
    SELECT
      p."value" AS "value",
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml"."MODEL_categorical" AS p
    WHERE
      p.attribute = 'c'
    GROUP BY
      p."value"
  ) AS wml_a0
    ON "wml_a0"."value" = CAST("s"."c" AS VARCHAR)
  CROSS JOIN (
    SELECT
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml"."MODEL_unseen" AS p
    WHERE
      "p"."attribute" = 'c'
  ) AS wml_a0_unseen
  LEFT JOIN (
    SELECT
      p."value" AS "value",
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml"."MODEL_categorical" AS p
    WHERE
      p.attribute = 'x'
    GROUP BY
      p."value"
  ) AS wml_a1
    ON "wml_a1"."value" = CAST(CASE
      WHEN "s"."x" IS NULL
      THEN NULL
      WHEN "s"."x" <= CAST(0.5 AS DOUBLE)
      THEN 0
      WHEN "s"."x" <= CAST(1.5 AS DOUBLE)
      THEN 1
      WHEN "s"."x" <= CAST(2.0 AS DOUBLE)
      THEN 2
      WHEN "s"."x" <= CAST(2.5 AS DOUBLE)
      THEN 3
      ELSE 4
    END AS VARCHAR)
  CROSS JOIN (
    SELECT
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml"."MODEL_unseen" AS p
    WHERE
      "p"."attribute" = 'x'
  ) AS wml_a1_unseen
  LEFT JOIN (
    SELECT
      p.value AS value,
      p.parent_value AS parent_value,
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml"."MODEL_cpt" AS p
    WHERE
      p.attribute = 'x'
    GROUP BY
      p.value,
      p.parent_value
  ) AS wml_t1
    ON "wml_t1"."value" = CAST(CASE
      WHEN "s"."x" IS NULL
      THEN NULL
      WHEN "s"."x" <= CAST(0.5 AS DOUBLE)
      THEN 0
      WHEN "s"."x" <= CAST(1.5 AS DOUBLE)
      THEN 1
      WHEN "s"."x" <= CAST(2.0 AS DOUBLE)
      THEN 2
      WHEN "s"."x" <= CAST(2.5 AS DOUBLE)
      THEN 3
      ELSE 4
    END AS VARCHAR)
    AND "wml_t1"."parent_value" = CAST("s"."k" AS VARCHAR)
  LEFT JOIN (
    SELECT
      p."parent_value" AS "parent_value",
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml"."MODEL_cpt_parent" AS p
    WHERE
      p.attribute = 'x'
    GROUP BY
      p."parent_value"
  ) AS wml_q1
    ON "wml_q1"."parent_value" = CAST("s"."k" AS VARCHAR)
  LEFT JOIN (
    SELECT
      p."value" AS "value",
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml"."MODEL_categorical" AS p
    WHERE
      p.attribute = 'd'
    GROUP BY
      p."value"
  ) AS wml_a2
    ON "wml_a2"."value" = CAST("s"."d" AS VARCHAR)
  CROSS JOIN (
    SELECT
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml"."MODEL_unseen" AS p
    WHERE
      "p"."attribute" = 'd'
  ) AS wml_a2_unseen
  LEFT JOIN (
    SELECT
      p.value AS value,
      p.parent_value AS parent_value,
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml"."MODEL_cpt" AS p
    WHERE
      p.attribute = 'd'
    GROUP BY
      p.value,
      p.parent_value
  ) AS wml_t2
    ON "wml_t2"."value" = CAST("s"."d" AS VARCHAR)
    AND "wml_t2"."parent_value" = CAST(CASE
      WHEN "s"."x" IS NULL
      THEN NULL
      WHEN "s"."x" <= CAST(0.5 AS DOUBLE)
      THEN 0
      WHEN "s"."x" <= CAST(1.5 AS DOUBLE)
      THEN 1
      WHEN "s"."x" <= CAST(2.0 AS DOUBLE)
      THEN 2
      WHEN "s"."x" <= CAST(2.5 AS DOUBLE)
      THEN 3
      ELSE 4
    END AS VARCHAR)
  LEFT JOIN (
    SELECT
      p."parent_value" AS "parent_value",
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml"."MODEL_cpt_parent" AS p
    WHERE
      p.attribute = 'd'
    GROUP BY
      p."parent_value"
  ) AS wml_q2
    ON "wml_q2"."parent_value" = CAST(CASE
      WHEN "s"."x" IS NULL
      THEN NULL
      WHEN "s"."x" <= CAST(0.5 AS DOUBLE)
      THEN 0
      WHEN "s"."x" <= CAST(1.5 AS DOUBLE)
      THEN 1
      WHEN "s"."x" <= CAST(2.0 AS DOUBLE)
      THEN 2
      WHEN "s"."x" <= CAST(2.5 AS DOUBLE)
      THEN 3
      ELSE 4
    END AS VARCHAR)
  LEFT JOIN (
    SELECT
      p."value" AS "value",
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml"."MODEL_categorical" AS p
    WHERE
      p.attribute = 'k'
    GROUP BY
      p."value"
  ) AS wml_a3
    ON "wml_a3"."value" = CAST("s"."k" AS VARCHAR)
  CROSS JOIN (
    SELECT
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml"."MODEL_unseen" AS p
    WHERE
      "p"."attribute" = 'k'
  ) AS wml_a3_unseen
  LEFT JOIN (
    SELECT
      p.value AS value,
      p.parent_value AS parent_value,
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml"."MODEL_cpt" AS p
    WHERE
      p.attribute = 'k'
    GROUP BY
      p.value,
      p.parent_value
  ) AS wml_t3
    ON "wml_t3"."value" = CAST("s"."k" AS VARCHAR)
    AND "wml_t3"."parent_value" = CAST("s"."c" AS VARCHAR)
  LEFT JOIN (
    SELECT
      p."parent_value" AS "parent_value",
      MAX(CASE WHEN p.class_index = 0 THEN "p"."log_prob" END) AS "lp_0",
      MAX(CASE WHEN p.class_index = 1 THEN "p"."log_prob" END) AS "lp_1"
    FROM "wml"."MODEL_cpt_parent" AS p
    WHERE
      p.attribute = 'k'
    GROUP BY
      p."parent_value"
  ) AS wml_q3
    ON "wml_q3"."parent_value" = CAST("s"."c" AS VARCHAR)
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
